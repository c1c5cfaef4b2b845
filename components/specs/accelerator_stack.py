"""Args of AcceleratorStack: the device software (drivers, device plugins) that makes a
pool's nodes advertise their accelerators, and the chart values derived from them.

Pure data: no Pulumi import. The backend (`nodepools.backends.accelerator_stack`) turns the
`Release` plans computed here into `pulumi_kubernetes.helm.v3.Release` resources.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from nodepools.specs.accelerators import Accelerator
from nodepools.specs.base import Issue, NestedIssues, SpecModel
from nodepools.specs.labels import POOL_LABEL
from nodepools.specs.pools import PoolName
from nodepools.specs.taints import Taint
from pydantic import Field, model_validator

# Charts, pinned. Versions read from the charts' own Chart.yaml (see scripts/chart_values_keys.py).
GPU_OPERATOR_CHART = ("https://helm.ngc.nvidia.com/nvidia", "gpu-operator", "v26.7.0")
NVIDIA_DEVICE_PLUGIN_CHART = (
    "https://nvidia.github.io/k8s-device-plugin",
    "nvidia-device-plugin",
    "0.20.0",
)
AMD_DEVICE_PLUGIN_CHART = ("https://rocm.github.io/k8s-device-plugin", "amd-gpu", "0.21.0")
NEURON_CHART = ("oci://public.ecr.aws/neuron", "neuron-helm-chart", "1.0.0")

# MIG profiles per GPU model (catalog `Accelerator.model`) -> instances of that profile one
# GPU holds. NVIDIA MIG user guide, "Supported MIG Profiles"
# (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html).
MIG_PROFILES: dict[str, dict[str, int]] = {
    "A100-40GB": {
        "1g.5gb": 7,
        "1g.10gb": 4,
        "2g.10gb": 3,
        "3g.20gb": 2,
        "4g.20gb": 1,
        "7g.40gb": 1,
    },
    "A100-80GB": {
        "1g.10gb": 7,
        "1g.20gb": 4,
        "2g.20gb": 3,
        "3g.40gb": 2,
        "4g.40gb": 1,
        "7g.80gb": 1,
    },
    "H100": {
        "1g.10gb": 7,
        "1g.20gb": 4,
        "2g.20gb": 3,
        "3g.40gb": 2,
        "4g.40gb": 1,
        "7g.80gb": 1,
    },
    "H200": {
        "1g.18gb": 7,
        "1g.35gb": 4,
        "2g.35gb": 3,
        "3g.71gb": 2,
        "4g.71gb": 1,
        "7g.141gb": 1,
    },
}

Platform = Literal["eks", "rosa", "oke", "generic"]
VENDOR_SOFTWARE = {"nvidia": "nvidia", "amd": "amd", "aws": "neuron"}


class ServedPool(SpecModel):
    """One pool whose nodes the stack serves: its name, taints and accelerators."""

    name: PoolName = Field(
        description="The pool's name (its `nodepools.dev/pool` label). Required."
    )
    accelerator: Accelerator | None = Field(
        default=None, description="The accelerators of one node; default None (a CPU pool)."
    )
    taints: list[Taint] = Field(
        default_factory=list[Taint], description="The pool's taints; default []."
    )


class Mig(SpecModel):
    """MIG partitioning (NVIDIA A100/H100/H200)."""

    strategy: Literal["none", "single", "mixed"] = Field(
        default="none", description="The operator's/device plugin's MIG strategy; default `none`."
    )
    profile: dict[str, str] = Field(
        default_factory=dict,
        description="Pool name -> the MIG profile every GPU of that pool is cut into, e.g. "
        "`1g.10gb`; default {}.",
    )


class TimeSlicing(SpecModel):
    """Time slicing: one GPU advertised as several."""

    replicas: dict[str, int] = Field(
        default_factory=dict, description="Pool name -> replicas per GPU (at least 2); default {}."
    )


class Nvidia(SpecModel):
    """NVIDIA software: the GPU Operator or the bare device plugin."""

    mode: Literal["operator", "device-plugin"] = Field(
        default="operator",
        description="`operator` (GPU Operator) or `device-plugin`; default `operator`.",
    )
    version: str | None = Field(
        default=None,
        description="Chart version; default the pinned one (gpu-operator v26.7.0, "
        "nvidia-device-plugin 0.20.0).",
    )
    driver: bool | None = Field(
        default=None,
        description="Operator installs the driver; default off on eks/oke (the AMI/image has it), "
        "on for rosa and generic.",
    )
    toolkit: bool = Field(
        default=True, description="Operator installs the container toolkit; default true."
    )
    dcgm_exporter: bool = Field(
        default=True, description="Operator runs DCGM exporter; default true."
    )
    mig: Mig = Field(default_factory=Mig, description="MIG; default strategy `none`, no profiles.")
    time_slicing: TimeSlicing = Field(
        default_factory=TimeSlicing, description="Time slicing; default none."
    )


class Amd(SpecModel):
    """AMD GPU device plugin (ROCm `amd-gpu` chart)."""

    version: str | None = Field(default=None, description="Chart version; default 0.21.0.")


class Neuron(SpecModel):
    """AWS Neuron device plugin (the Neuron Helm chart)."""

    version: str | None = Field(default=None, description="Chart version; default 1.0.0.")
    scheduler: bool = Field(default=False, description="Neuron scheduler extension; default false.")


class AcceleratorStackArgs(SpecModel):
    """The device software for a set of pools: vendors derived from their accelerators."""

    platform: Platform = Field(description="`eks`, `rosa`, `oke` or `generic`. Required.")
    pools: list[ServedPool] = Field(
        min_length=1, description="The pools served; names unique. Required."
    )
    nvidia: Nvidia | None = Field(
        default=None,
        description="NVIDIA options; default `Nvidia()` when an NVIDIA pool is served.",
    )
    amd: Amd | None = Field(
        default=None, description="AMD options; default `Amd()` when an AMD pool is served."
    )
    neuron: Neuron | None = Field(
        default=None, description="Neuron options; default `Neuron()` when a Neuron pool is served."
    )
    namespace: str | None = Field(
        default=None,
        description="Namespace of every release; default per vendor (`gpu-operator`, "
        "`nvidia-device-plugin`, `amd-gpu`, `kube-system` for Neuron).",
    )
    create_namespace: bool = Field(
        default=True, description="Helm creates the namespace; default true."
    )

    @model_validator(mode="after")
    def _consistent(self) -> AcceleratorStackArgs:
        problems: list[Issue] = []
        names = [p.name for p in self.pools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            problems.append(Issue("pools", f"{dupes} listed more than once"))
        by_name = {p.name: p for p in self.pools}
        vendors = vendors_of(self.pools)
        for option, vendor in (("amd", "amd"), ("neuron", "aws"), ("nvidia", "nvidia")):
            if getattr(self, option) is not None and vendor not in vendors:
                problems.append(Issue(option, f"set but no served pool has {vendor} accelerators"))
        nv = self.nvidia
        if nv is not None:
            for pool, profile in sorted(nv.mig.profile.items()):
                where = f"nvidia.mig.profile.{pool}"
                acc = by_name[pool].accelerator if pool in by_name else None
                if pool not in by_name:
                    problems.append(Issue(where, f"{pool!r} is not a served pool"))
                elif acc is None or acc.vendor != "nvidia":
                    problems.append(Issue(where, f"pool {pool!r} has no NVIDIA GPUs"))
                elif profile not in MIG_PROFILES.get(acc.model, {}):
                    known = sorted(MIG_PROFILES.get(acc.model, {}))
                    problems.append(
                        Issue(
                            where,
                            f"{profile!r} is not a MIG profile of {acc.model or 'this GPU'!r}"
                            f" (known: {known})",
                        )
                    )
                if pool in nv.time_slicing.replicas:
                    problems.append(Issue(where, f"MIG and time slicing on the same pool {pool!r}"))
            if nv.mig.profile and nv.mig.strategy == "none":
                problems.append(Issue("nvidia.mig.strategy", "'none' but MIG profiles are set"))
            for pool, replicas in sorted(nv.time_slicing.replicas.items()):
                where = f"nvidia.time_slicing.replicas.{pool}"
                if pool not in by_name:
                    problems.append(Issue(where, f"{pool!r} is not a served pool"))
                elif replicas < 2:
                    problems.append(Issue(where, f"{replicas!r} is below 2"))
        if problems:
            raise NestedIssues(problems)
        return self


def vendors_of(pools: list[ServedPool]) -> set[str]:
    """The accelerator vendors (`nvidia`, `amd`, `aws`) of the pools."""
    return {p.accelerator.vendor for p in pools if p.accelerator is not None} & set(VENDOR_SOFTWARE)


@dataclass(frozen=True)
class ReleasePlan:
    """One Helm release: chart, pinned version, namespace, values, and why."""

    name: str
    vendor: str
    repository: str
    chart: str
    version: str
    namespace: str
    values: dict[str, Any]
    pools: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Advertised:
    """What one node of a pool advertises once the stack runs."""

    pool: str
    software: str
    resource: str
    count: int
    tolerated: bool


def _tolerations(pools: list[ServedPool]) -> list[dict[str, str]]:
    """Every taint of the pools, tolerated exactly (deduplicated, sorted)."""
    seen: dict[tuple[str, str, str], dict[str, str]] = {}
    for pool in pools:
        for t in pool.taints:
            if t.value is None:
                tol = {"key": t.key, "operator": "Exists", "effect": t.effect}
            else:
                tol = {"key": t.key, "operator": "Equal", "value": t.value, "effect": t.effect}
            seen[(t.key, t.value or "", t.effect)] = tol
    return [seen[k] for k in sorted(seen)]


def _pool_affinity(pools: list[ServedPool]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": POOL_LABEL,
                                "operator": "In",
                                "values": sorted(p.name for p in pools),
                            }
                        ]
                    }
                ]
            }
        }
    }


def _time_slicing_config(replicas: dict[str, int], mig_strategy: str) -> dict[str, str]:
    """Device-plugin config map entries: one per pool with time slicing, named after it."""
    import json

    out: dict[str, str] = {}
    for pool, n in sorted(replicas.items()):
        out[pool] = json.dumps(
            {
                "version": "v1",
                "flags": {"migStrategy": mig_strategy},
                "sharing": {
                    "timeSlicing": {"resources": [{"name": "nvidia.com/gpu", "replicas": n}]}
                },
            },
            sort_keys=True,
        )
    return out


def plan_releases(name: str, spec: AcceleratorStackArgs) -> list[ReleasePlan]:
    """The Helm releases for `spec`, one per vendor (AMD and Neuron: one per pool, since
    their charts select nodes by a single nodeSelector map). Deterministic."""
    plans: list[ReleasePlan] = []
    by_vendor: dict[str, list[ServedPool]] = {}
    for pool in sorted(spec.pools, key=lambda p: p.name):
        if pool.accelerator is not None and pool.accelerator.vendor in VENDOR_SOFTWARE:
            by_vendor.setdefault(pool.accelerator.vendor, []).append(pool)
    nvidia_pools = by_vendor.get("nvidia", [])
    if nvidia_pools:
        nv = spec.nvidia or Nvidia()
        tolerations = _tolerations(nvidia_pools)
        if nv.mode == "operator":
            repo, chart, version = GPU_OPERATOR_CHART
            driver = nv.driver if nv.driver is not None else spec.platform in ("rosa", "generic")
            values: dict[str, Any] = {
                "driver": {"enabled": driver},
                "toolkit": {"enabled": nv.toolkit},
                "dcgmExporter": {"enabled": nv.dcgm_exporter},
                "daemonsets": {"tolerations": tolerations},
                "node-feature-discovery": {"worker": {"tolerations": tolerations}},
                "mig": {"strategy": nv.mig.strategy if nv.mig.strategy != "none" else "single"},
            }
            if nv.time_slicing.replicas:
                values["devicePlugin"] = {
                    "config": {
                        "create": True,
                        "name": f"{name}-time-slicing",
                        "default": "",
                        "data": _time_slicing_config(nv.time_slicing.replicas, nv.mig.strategy),
                    }
                }
            namespace = spec.namespace or "gpu-operator"
        else:
            repo, chart, version = NVIDIA_DEVICE_PLUGIN_CHART
            values = {
                "tolerations": tolerations,
                "affinity": _pool_affinity(nvidia_pools),
                "migStrategy": nv.mig.strategy,
            }
            if nv.time_slicing.replicas:
                values["config"] = {
                    "map": _time_slicing_config(nv.time_slicing.replicas, nv.mig.strategy),
                }
            namespace = spec.namespace or "nvidia-device-plugin"
        plans.append(
            ReleasePlan(
                f"{name}-nvidia",
                "nvidia",
                repo,
                chart,
                nv.version or version,
                namespace,
                values,
                tuple(p.name for p in nvidia_pools),
            )
        )
    amd = spec.amd or Amd()
    for pool in by_vendor.get("amd", []):
        repo, chart, version = AMD_DEVICE_PLUGIN_CHART
        plans.append(
            ReleasePlan(
                f"{name}-amd-{pool.name}",
                "amd",
                repo,
                chart,
                amd.version or version,
                spec.namespace or "amd-gpu",
                {
                    "tolerations": _tolerations([pool]),
                    "node_selector_enabled": True,
                    "node_selector": {POOL_LABEL: pool.name},
                },
                (pool.name,),
            )
        )
    neuron = spec.neuron or Neuron()
    for pool in by_vendor.get("aws", []):
        repo, chart, version = NEURON_CHART
        plans.append(
            ReleasePlan(
                f"{name}-neuron-{pool.name}",
                "aws",
                repo,
                chart,
                neuron.version or version,
                spec.namespace or "kube-system",
                {
                    "devicePlugin": {
                        "fullnameOverride": f"neuron-device-plugin-{pool.name}",
                        "nodeSelector": {POOL_LABEL: pool.name},
                        "tolerations": _tolerations([pool]),
                    },
                    "scheduler": {"enabled": neuron.scheduler},
                    "npd": {"enabled": False},
                },
                (pool.name,),
            )
        )
    return plans


def advertised(spec: AcceleratorStackArgs) -> list[Advertised]:
    """Per served accelerator pool: the resource and count one node advertises after MIG
    or time slicing, and whether our DaemonSet tolerates every taint of the pool."""
    nv = spec.nvidia or Nvidia()
    out: list[Advertised] = []
    for pool in sorted(spec.pools, key=lambda p: p.name):
        acc = pool.accelerator
        if acc is None or acc.vendor not in VENDOR_SOFTWARE:
            continue
        resource, count = acc.resource, acc.count
        software = {"nvidia": f"nvidia-{nv.mode}", "amd": "amd-gpu", "aws": "neuron"}[acc.vendor]
        if acc.vendor == "nvidia":
            profile = nv.mig.profile.get(pool.name)
            if profile is not None:
                per_gpu = MIG_PROFILES[acc.model][profile]
                count = acc.count * per_gpu
                if nv.mig.strategy == "mixed":
                    resource = f"nvidia.com/mig-{profile}"
            elif pool.name in nv.time_slicing.replicas:
                count = acc.count * nv.time_slicing.replicas[pool.name]
        out.append(Advertised(pool.name, software, resource, count, True))
    return out
