"""KueueQueues: Kueue objects registered exactly as written (see nodepools.specs.governance.kueue).

For a platform that already has ClusterQueues, LocalQueues and ResourceFlavors, or wants
what Kueue's examples say rather than PoolQuotas' organisation model. Every object is
validated (CRD schema and CEL rules, Kueue's webhook checks, references between objects)
before any is registered; pass the cluster's Kubernetes provider in `opts`.
"""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.governance.manifests import Rendered
from nodepools.outputs import known_output
from nodepools.preflight import checked
from nodepools.specs.core.kube import kube_name
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.kueue import KueueQueuesArgs


def _role(manifest: dict[str, Any]) -> str:
    meta = manifest["metadata"]
    name = f"{meta['namespace']}-{meta['name']}" if "namespace" in meta else meta["name"]
    return f"{manifest['kind'].lower()}-{kube_name(name)}"


@documented(KueueQueuesArgs)
class KueueQueues(pulumi.ComponentResource):
    """Kueue ResourceFlavors, Cohorts, ClusterQueues, LocalQueues, Topologies and admission
    checks (AdmissionChecks, ProvisioningRequestConfigs, MultiKueueConfigs,
    MultiKueueClusters), as written.

    Outputs: `queue_names` (`<namespace>/<LocalQueue>` -> the LocalQueue's name, the value
    of a workload's `kueue.x-k8s.io/queue-name` label) and `manifests` (every object).
    Children: `{name}-<kind>-<object name>` (LocalQueues `{name}-localqueue-<namespace>-<name>`).
    """

    TYPE = "nodepools:index:KueueQueues"

    queue_names: pulumi.Output[dict[str, Any]]
    manifests: pulumi.Output[list[dict[str, Any]]]

    @classmethod
    def preflight(cls, name: str, args: KueueQueuesArgs | dict[str, Any]) -> list[Rendered]:
        """Every object rendered and validated, nothing registered."""
        parsed = parse_spec(KueueQueuesArgs, args, f"KueueQueues {name!r}")
        return [Rendered(_role(m), m, origin) for origin, m in parsed.manifests()]

    def __init__(
        self,
        name: str,
        args: KueueQueuesArgs | dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        objects: list[Rendered] = checked(self, name, args, opts)
        summary = [{"kind": o.kind, "name": o.object_name, "origin": o.origin} for o in objects]
        super().__init__(self.TYPE, name, {"spec": {"objects": summary}}, opts)
        from nodepools.governance.register import register_manifests

        self.resources = register_manifests(name, objects, self)
        self.queue_names = known_output(
            {
                o.object_name: o.manifest["metadata"]["name"]
                for o in objects
                if o.kind == "LocalQueue"
            }
        )
        self.manifests = known_output([o.manifest for o in objects])
        self.register_outputs({"queue_names": self.queue_names, "manifests": self.manifests})
