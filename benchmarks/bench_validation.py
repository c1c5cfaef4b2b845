"""Offline custom-resource validation: compile time and throughput.

``run()`` measures, in this process:

- ``compile_s``: building the validators of every kind from scratch (facts
  loaded, schemas compiled, every CEL rule compiled, CEL environment created), plus
  ``cel_import_s``, the one-off import of the CEL runtime if it was not imported yet;
- ``manifests_per_s``: 1,000 mixed custom resources (NodePools, EC2NodeClasses and the
  five Kueue kinds, all valid, each with its own name) validated after that compile,
  best of ``repeats`` rounds;
- ``invalid_manifests_per_s``: the same with every manifest carrying a CEL violation
  where the kind has rules, so the error paths are timed too.

Target: 1,000 custom resources in under 1 second after one compile.

Run it as a script (``python benchmarks/bench_validation.py``) for the numbers; the recorded
ones are in benchmarks/README.md.
"""

from __future__ import annotations

import copy
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nodepools import validation  # noqa: E402
from nodepools.validation import cel, regex  # noqa: E402
from nodepools.validation import validator as validator_module  # noqa: E402

MANIFEST_COUNT = 1000


def _node_pool(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": f"gpu-{i}"},
        "spec": {
            "template": {
                "metadata": {"labels": {"node-type": "gpu", "pool": f"gpu-{i}"}},
                "spec": {
                    "nodeClassRef": {
                        "group": "karpenter.k8s.aws",
                        "kind": "EC2NodeClass",
                        "name": "gpu",
                    },
                    "requirements": [
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
                        {
                            "key": "karpenter.k8s.aws/instance-family",
                            "operator": "In",
                            "values": ["g5", "p4d"],
                        },
                        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                        {
                            "key": "karpenter.k8s.aws/instance-generation",
                            "operator": "Gt",
                            "values": ["4"],
                        },
                    ],
                    "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
                },
            },
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
            "limits": {"cpu": "1000", "nvidia.com/gpu": 64},
        },
    }


def _ec2_node_class(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": f"gpu-{i}"},
        "spec": {
            "role": "KarpenterNodeRole",
            "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml"}}],
            "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml"}}],
            "blockDeviceMappings": [
                {
                    "deviceName": "/dev/xvda",
                    "rootVolume": True,
                    "ebs": {"volumeSize": "200Gi", "volumeType": "gp3"},
                }
            ],
            "tags": {"team": "ml"},
        },
    }


def _resource_flavor(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": f"gpu-{i}"},
        "spec": {
            "nodeLabels": {"karpenter.sh/nodepool": f"gpu-{i}"},
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
            ],
        },
    }


def _cluster_queue(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": f"project-{i}"},
        "spec": {
            "cohortName": "research",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                    "flavors": [
                        {
                            "name": f"gpu-{i}",
                            "resources": [
                                {"name": "cpu", "nominalQuota": 96},
                                {"name": "memory", "nominalQuota": "768Gi"},
                                {"name": "nvidia.com/gpu", "nominalQuota": 8, "borrowingLimit": 8},
                            ],
                        }
                    ],
                }
            ],
        },
    }


def _local_queue(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "default", "namespace": f"project-{i}"},
        "spec": {"clusterQueue": f"project-{i}"},
    }


def _cohort(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Cohort",
        "metadata": {"name": f"department-{i}"},
        "spec": {"parentName": "org"},
    }


def _priority_class(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "WorkloadPriorityClass",
        "metadata": {"name": f"priority-{i}"},
        "value": i,
    }


# Weighted like a fleet: pools and their quotas dominate.
BUILDERS = (
    _node_pool,
    _node_pool,
    _ec2_node_class,
    _resource_flavor,
    _cluster_queue,
    _cluster_queue,
    _local_queue,
    _local_queue,
    _cohort,
    _priority_class,
)


def mixed_manifests(count: int = MANIFEST_COUNT) -> list[dict[str, Any]]:
    return [BUILDERS[i % len(BUILDERS)](i) for i in range(count)]


def _break(manifest: dict[str, Any]) -> dict[str, Any]:
    broken = copy.deepcopy(manifest)
    spec = broken.get("spec", {})
    kind = broken["kind"]
    if kind == "NodePool":
        spec["template"]["metadata"]["labels"]["karpenter.sh/custom"] = "x"
    elif kind == "EC2NodeClass":
        spec["instanceProfile"] = "profile"
    elif kind == "ResourceFlavor":
        spec["tolerations"][0]["value"] = "x"
    elif kind == "ClusterQueue":
        del spec["cohortName"]
    elif kind == "LocalQueue":
        spec["clusterQueue"] = "Not_A_Name"
    elif kind == "Cohort":
        del spec["parentName"]
        spec["resourceGroups"] = [
            {"coveredResources": ["cpu"], "flavors": [{"name": "f", "resources": []}]}
        ]
    else:
        broken["value"] = "high"
    return broken


def _reset_caches() -> None:
    validator_module._VALIDATORS.clear()
    cel._ENV = None
    regex.compile_re2.cache_clear()


def _throughput(manifests: list[dict[str, Any]], repeats: int) -> tuple[float, int]:
    best = float("inf")
    violations = 0
    for _ in range(repeats):
        start = time.perf_counter()
        violations = len(validation.validate_manifests(manifests))
        best = min(best, time.perf_counter() - start)
    return best, violations


def run(repeats: int = 3) -> dict[str, Any]:
    cel_import_s = None
    if "cel_expr_python" not in sys.modules:
        start = time.perf_counter()
        import cel_expr_python.cel  # noqa: F401

        cel_import_s = time.perf_counter() - start

    _reset_caches()
    start = time.perf_counter()
    for api_version, kind in sorted(validation.KNOWN_KINDS):
        validator_module.validator_for(api_version, kind)
    compile_s = time.perf_counter() - start
    rules = sum(v.rule_count for v in validator_module._VALIDATORS.values())

    manifests = mixed_manifests()
    valid_s, valid_violations = _throughput(manifests, repeats)
    if valid_violations:
        raise AssertionError(
            f"benchmark manifests should be valid, got {valid_violations} violations"
        )
    invalid = [_break(m) for m in manifests]
    invalid_s, invalid_violations = _throughput(invalid, repeats)

    return {
        "kinds": len(validation.KNOWN_KINDS),
        "cel_rules": rules,
        "cel_import_s": round(cel_import_s, 4) if cel_import_s is not None else None,
        "compile_s": round(compile_s, 4),
        "manifests": len(manifests),
        "validate_s": round(valid_s, 4),
        "manifests_per_s": round(len(manifests) / valid_s),
        "invalid_validate_s": round(invalid_s, 4),
        "invalid_manifests_per_s": round(len(invalid) / invalid_s),
        "invalid_violations": invalid_violations,
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:>24}: {value}")
