"""What of a Helm `Release` the API server can check without the chart: the pod-level
scheduling fields AcceleratorStack derives from the served pools (tolerations, nodeSelector,
affinity), put where the chart puts them, the pod template of a DaemonSet.

The charts are not served here (no chart repository is reachable), so the rest of the values
(driver, toolkit, MIG strategy, time-slicing config) cannot reach a server; the chart keys we
set are checked against the pinned charts' values.yaml keys (tests/devices). A chart this
module does not know fails the tests, so a new chart cannot slip past unchecked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.controlplane.objects import KubeObject, integral

RELEASE = "kubernetes:helm.sh/v3:Release"
STAND_IN_IMAGE = "registry.example/stand-in:1"


@dataclass(frozen=True)
class DaemonPod:
    """One DaemonSet a release's chart runs, with the scheduling fields our values give it."""

    release: str
    workload: str
    namespace: str
    create_namespace: bool
    fragment: dict[str, Any]  # tolerations / nodeSelector / affinity, as the chart writes them

    @property
    def name(self) -> str:
        return f"{self.release}-{self.workload}"


def _fragment(
    tolerations: Any = None, node_selector: Any = None, affinity: Any = None
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if tolerations:
        out["tolerations"] = tolerations
    if node_selector:
        out["nodeSelector"] = node_selector
    if affinity:
        out["affinity"] = affinity
    return out


def daemon_pods(inputs: dict[str, Any]) -> list[DaemonPod]:
    """The DaemonSets of one Release (its registered inputs) whose pod scheduling we set."""
    inputs = integral(inputs)
    chart: str = inputs["chart"].rsplit("/", 1)[-1]
    values: dict[str, Any] = inputs.get("values") or {}
    if chart == "gpu-operator":
        # daemonsets.tolerations go to every operand DaemonSet (driver, toolkit, device
        # plugin, DCGM, MIG manager...), which run only where the operator labels GPU nodes;
        # NFD's worker runs on every node.
        found = [
            ("operands", _fragment(values.get("daemonsets", {}).get("tolerations"))),
            (
                "nfd-worker",
                _fragment(
                    values.get("node-feature-discovery", {}).get("worker", {}).get("tolerations")
                ),
            ),
        ]
    elif chart == "nvidia-device-plugin":
        found = [
            (
                "device-plugin",
                _fragment(
                    values.get("tolerations"), values.get("nodeSelector"), values.get("affinity")
                ),
            )
        ]
    elif chart == "amd-gpu":
        # A null removes a chart default key from the merged map (Helm): not a selector.
        selector = values.get("node_selector") if values.get("node_selector_enabled") else None
        selector = {k: v for k, v in (selector or {}).items() if v is not None}
        found = [("device-plugin", _fragment(values.get("tolerations"), selector))]
    elif chart == "neuron-helm-chart":
        plugin = values.get("devicePlugin", {})
        # The chart's DaemonSet selects nodes by instance type, from `neuronInstances`.
        affinity = None
        if values.get("neuronInstances"):
            terms = [
                {
                    "matchExpressions": [
                        {"key": key, "operator": "In", "values": values["neuronInstances"]}
                    ]
                }
                for key in ("node.kubernetes.io/instance-type",)
            ]
            affinity = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
                }
            }
        found = [
            (
                "device-plugin",
                _fragment(plugin.get("tolerations"), plugin.get("nodeSelector"), affinity),
            )
        ]
    elif chart == "aws-efa-k8s-device-plugin":
        # The chart's template: CriticalAddonsOnly before our tolerations, and a node affinity
        # on `supportedInstanceLabels` (instance types; EKS Auto Mode nodes kept out).
        types = values.get("supportedInstanceLabels", {}).get("values") or []
        affinity = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "node.kubernetes.io/instance-type",
                                    "operator": "In",
                                    "values": types,
                                },
                                {
                                    "key": "eks.amazonaws.com/compute-type",
                                    "operator": "NotIn",
                                    "values": ["auto"],
                                },
                            ]
                        }
                    ]
                }
            }
        }
        tolerations = [
            {"key": "CriticalAddonsOnly", "operator": "Exists"},
            *(values.get("tolerations") or []),
        ]
        found = [
            (
                "efa-device-plugin",
                _fragment(tolerations, values.get("nodeSelector"), affinity if types else None),
            )
        ]
    else:
        raise AssertionError(
            f"Release {inputs.get('name')}: chart {inputs['chart']!r} has no stand-in in "
            "tests/controlplane/releases.py: say where its values put pod scheduling fields"
        )
    return [
        DaemonPod(
            release=inputs["name"],
            workload=workload,
            namespace=(
                values.get("devicePlugin", {}).get("namespaceOverride")
                if chart == "neuron-helm-chart"
                else None
            )
            or inputs.get("namespace")
            or "default",
            create_namespace=bool(inputs.get("createNamespace")),
            fragment=fragment,
        )
        for workload, fragment in found
    ]


def stand_in_daemonset(pod: DaemonPod, source: str) -> KubeObject:
    """An apps/v1 DaemonSet with the release's pod scheduling fields and a stand-in container."""
    labels = {"app.kubernetes.io/name": pod.name}
    return KubeObject(
        source=f"{source}: stand-in for Release {pod.release} ({pod.workload})",
        manifest={
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": pod.name, "namespace": pod.namespace},
            "spec": {
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        **pod.fragment,
                        "containers": [{"name": "stand-in", "image": STAND_IN_IMAGE}],
                    },
                },
            },
        },
    )


def namespace_object(name: str, source: str) -> KubeObject:
    return KubeObject(
        source=f"{source}: namespace a Release creates (createNamespace)",
        manifest={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
    )
