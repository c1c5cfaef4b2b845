"""Karpenter's controller with its KWOK cloud provider for the control-plane tests: where the
optional build puts it, its CRDs (from the same Go module), the instance types it offers
(made from our own instance catalog) and how our NodePools are bridged to it.

The bridge: our NodePool names an EC2NodeClass (karpenter.k8s.aws), which only the AWS
provider serves. The KWOK provider serves KWOKNodeClass (karpenter.kwok.sh). The NodePool we
render is applied as it is except `spec.template.spec.nodeClassRef`, which names a
KWOKNodeClass; its requirements keep their AWS label keys (`karpenter.k8s.aws/instance-family`,
...), which the instance types below carry as offering requirements (from which the KWOK
provider makes well-known labels), so the requirements select the same instance types as on
AWS, named as on AWS, sized as our catalog says.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from nodepools.specs.catalog.instance_types import catalog_names, instance_type

from tests.controlplane.cluster import (
    ControlPlane,
    _wait_ready,
    free_port,
    kubeconfig,
    pinned_versions,
)

NODE_CLASS = {"group": "karpenter.kwok.sh", "kind": "KWOKNodeClass", "name": "nodepools-kwok"}
ZONE = "test-zone-a"
AWS_GROUP = "karpenter.k8s.aws"
_AWS_NAME = re.compile(
    r"(?P<family>(?P<category>[a-z]+)(?P<generation>\d+)[a-z]*(?:-[a-z0-9]+)*)\.(?P<size>[a-z0-9-]+)"
)


def karpenter_version() -> str:
    return pinned_versions()["KARPENTER"]


def karpenter_binary() -> Path | None:
    """The built `kwok` (Karpenter + KWOK provider) of the pinned version, or None:
    `make karpenter-kwok` builds it (scripts/cluster_tools.sh karpenter-kwok)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    path = Path(cache) / "nodepools" / f"karpenter-kwok-{karpenter_version()}" / "bin" / "kwok"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def karpenter_crd_paths() -> list[Path]:
    """Karpenter's CRDs as its KWOK chart installs them, and the KWOKNodeClass CRD, from the
    Go module cache the build filled."""
    modcache = subprocess.run(
        ["go", "env", "GOMODCACHE"], check=True, capture_output=True, text=True
    ).stdout.strip()
    root = Path(modcache) / f"sigs.k8s.io/karpenter@{karpenter_version()}/kwok"
    return [
        *sorted((root / "charts" / "crds").glob("*.yaml")),
        *sorted((root / "apis" / "crds").glob("*.yaml")),
    ]


def _offering(capacity_type: str, price: float, labels: dict[str, str]) -> dict[str, Any]:
    requirements = [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": [capacity_type]},
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [ZONE]},
        *({"key": k, "operator": "In", "values": [v]} for k, v in sorted(labels.items())),
    ]
    return {"Price": price, "Available": True, "Requirements": requirements}


def instance_types() -> list[dict[str, Any]]:
    """Every AWS type of our catalog with its size known, as the KWOK provider reads them:
    resources (cpu, memory, the accelerator), on-demand and spot offerings in one zone, and
    the AWS provider's well-known instance labels."""
    out: list[dict[str, Any]] = []
    for name in catalog_names():
        entry = instance_type(name)
        match = _AWS_NAME.fullmatch(name)
        if (
            entry is None
            or entry.cloud != "aws"
            or not entry.vcpus
            or not entry.memory_mib
            or not match
        ):
            continue
        resources = {"cpu": str(entry.vcpus), "memory": f"{entry.memory_mib}Mi", "pods": "110"}
        labels = {
            f"{AWS_GROUP}/instance-family": match["family"],
            f"{AWS_GROUP}/instance-category": match["category"],
            f"{AWS_GROUP}/instance-generation": match["generation"],
            f"{AWS_GROUP}/instance-size": match["size"],
            f"{AWS_GROUP}/instance-cpu": str(entry.vcpus),
            f"{AWS_GROUP}/instance-memory": str(entry.memory_mib),
        }
        if entry.efa_interfaces:
            # What the EFA device plugin advertises on such a node (a pool with `efa: true`
            # asks for it in its scheduling info).
            resources["vpc.amazonaws.com/efa"] = str(entry.efa_interfaces)
        if entry.accelerator is not None:
            resources[entry.accelerator.resource] = str(entry.accelerator.count)
            if entry.accelerator.vendor in ("nvidia", "amd"):
                labels[f"{AWS_GROUP}/instance-gpu-count"] = str(entry.accelerator.count)
                labels[f"{AWS_GROUP}/instance-gpu-manufacturer"] = entry.accelerator.vendor
        price = float(entry.vcpus) / 20
        out.append(
            {
                "name": name,
                "architecture": "arm64" if entry.arch == "arm64" else "amd64",
                "operatingSystems": ["linux"],
                "resources": resources,
                "offerings": [
                    _offering("on-demand", price, labels),
                    _offering("spot", price / 3, labels),
                ],
            }
        )
    return out


def kwok_node_pool(manifest: dict[str, Any]) -> dict[str, Any]:
    """Our rendered NodePool with its node class reference bridged to the KWOK node class.

    `reserved` capacity is asked as `on-demand` (`_kwok_capacity_types`). `minValues` on an
    AWS instance label is dropped: the KWOK provider builds each instance
    type's own requirements from a fixed set of keys (its karpenter.kwok.sh labels), and
    Karpenter counts minValues over those, not over offering requirements, so no AWS label
    could ever reach a minValues > 1 here (Karpenter: "minValues requirement is not met")."""
    template = manifest["spec"]["template"]
    requirements = [
        _kwok_capacity_types(
            {
                k: v
                for k, v in r.items()
                if not (k == "minValues" and r["key"].startswith(AWS_GROUP))
            }
        )
        for r in template["spec"].get("requirements", [])
    ]
    spec = {**template["spec"], "nodeClassRef": NODE_CLASS}
    if requirements:
        spec["requirements"] = requirements
    return {**manifest, "spec": {**manifest["spec"], "template": {**template, "spec": spec}}}


def _kwok_capacity_types(requirement: dict[str, Any]) -> dict[str, Any]:
    """`reserved` becomes `on-demand`: the KWOK provider serves no reserved offerings (it never
    sets Karpenter's reservation-id label, so a reserved offering could not be told apart),
    and a reservation is on-demand capacity bought ahead. Every other requirement stays."""
    if requirement["key"] != "karpenter.sh/capacity-type" or "values" not in requirement:
        return requirement
    values = sorted({"on-demand" if v == "reserved" else v for v in requirement["values"]})
    return {**requirement, "values": values}


def start_karpenter(plane: ControlPlane) -> subprocess.Popen[bytes]:
    """Karpenter (KWOK provider) against the plane, no leader election; returns once its
    health probe answers."""
    binary = karpenter_binary()
    assert binary is not None
    types = plane.workdir / "kwok-instance-types.json"
    types.write_text(json.dumps(instance_types()))
    health, metrics = free_port(), free_port()
    proc = plane.start(
        "karpenter",
        [
            str(binary),
            "--disable-leader-election",
            f"--health-probe-port={health}",
            f"--metrics-port={metrics}",
            f"--instance-types-file-path={types}",
            "--batch-idle-duration=1s",
            "--batch-max-duration=3s",
            "--log-level=debug",
            # static NodePools (`replicas`) are behind this gate in this release
            "--feature-gates=StaticCapacity=true",
        ],
        env={"KUBECONFIG": str(kubeconfig(plane)), "SYSTEM_NAMESPACE": "kube-system"},
    )
    _wait_ready(plane, f"http://127.0.0.1:{health}/healthz", "karpenter", proc, timeout=180)
    return proc
