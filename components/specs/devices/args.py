"""Args of AcceleratorStack: the device software (drivers, device plugins) that makes a
pool's nodes advertise their accelerators, the node labels that software needs on each
pool, and what each pool then advertises.

Pure data: no Pulumi import. `nodepools.specs.devices.releases` derives the Helm releases
and OKE add-ons from these args, `nodepools.specs.devices.placement` proves where their pods
run; the backend (`nodepools.backends.devices`) registers them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from nodepools.json_values import is_list
from nodepools.specs.catalog.accelerators import Accelerator
from nodepools.specs.clusters.identifiers import check_oke_cluster_id
from nodepools.specs.core.base import Issue, NestedIssues, PathError, SpecModel, wired
from nodepools.specs.core.kube import DnsLabel
from nodepools.specs.core.labels import POOL_LABEL, Labels
from nodepools.specs.core.taints import Taint
from nodepools.specs.devices.chart_source import ChartSource
from nodepools.specs.devices.chart_version import ChartVersion
from nodepools.specs.devices.mig_profiles import MIG_PROFILES
from nodepools.specs.devices.served_pools import served_pool
from nodepools.specs.pools.names import PoolName
from pydantic import Field, field_validator, model_validator

# Charts, pinned. Versions read from the charts' own Chart.yaml (see scripts/chart_values_keys.py).
GPU_OPERATOR_CHART = ("https://helm.ngc.nvidia.com/nvidia", "gpu-operator", "v26.7.0")
NVIDIA_DEVICE_PLUGIN_CHART = (
    "https://nvidia.github.io/k8s-device-plugin",
    "nvidia-device-plugin",
    "0.20.0",
)
AMD_DEVICE_PLUGIN_CHART = ("https://rocm.github.io/k8s-device-plugin", "amd-gpu", "0.21.0")
NEURON_CHART = ("oci://public.ecr.aws/neuron", "neuron-helm-chart", "1.0.0")
# The AWS EFA device plugin (advertises `vpc.amazonaws.com/efa`), aws/eks-charts.
EFA_CHART = ("https://aws.github.io/eks-charts", "aws-efa-k8s-device-plugin", "v0.5.30")

Platform = Literal["eks", "rosa", "oke", "generic"]
VENDOR_SOFTWARE = {"nvidia": "nvidia", "amd": "amd", "aws": "neuron"}

# Labels the device software reads on a node (NVIDIA GPU Operator / device plugin docs):
# which named device-plugin config the node uses, and which MIG layout mig-manager applies.
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
# The AMD chart selects nodes by one nodeSelector map (no affinity value), so one release
# serving several pools selects them by a label all of them carry: this one.
DEVICE_SOFTWARE_LABEL = "nodepools.dev/device-software"
# The EFA chart, too, selects nodes by one nodeSelector map: the EFA pools all carry this.
EFA_LABEL = "nodepools.dev/efa"
# The device-plugin config every node without a per-pool config uses.
DEFAULT_PLUGIN_CONFIG = "default"


class ServedPool(SpecModel):
    """One pool whose nodes the stack serves: its name, taints and accelerators."""

    name: PoolName = Field(
        description="The pool's name (its `nodepools.dev/pool` label). Required."
    )
    accelerator: Accelerator | None = Field(
        default=None, description="The accelerators of one node; default None (a CPU pool)."
    )
    taints: list[Taint] = Field(
        default_factory=list[Taint],
        description="The pool's taints, including those the cloud adds itself (an OKE "
        "preemptible pool's `oci.oraclecloud.com/oke-is-preemptible:NoSchedule`, which "
        "`AcceleratorStack.served` includes); default [].",
    )
    startup_taints: list[Taint] = Field(
        default_factory=list[Taint],
        description="Taints its nodes start with until something removes them (Karpenter "
        "`startup_taints`); the device software tolerates them too, since it must run "
        "before the node is ready for pods. Default [].",
    )
    instance_types: list[str] = Field(
        default_factory=list[str],
        description="Instance types its nodes may have; default []. The Neuron chart selects "
        "nodes by instance type: these join its list.",
    )
    node_labels: Labels | None = Field(
        default=None,
        description="Labels every node of the pool carries, that select it; default None: "
        "its identity label `nodepools.dev/pool: <name>`.",
    )
    efa: bool = Field(
        default=False,
        description="Its nodes carry EFA interfaces (an EKS pool's `network.efa`, a Karpenter "
        "pool's `efa`), so the EFA device plugin must run there to advertise "
        "`vpc.amazonaws.com/efa`; default false.",
    )

    @property
    def selector(self) -> dict[str, str]:
        """The labels that select this pool's nodes."""
        return dict(self.node_labels) if self.node_labels is not None else {POOL_LABEL: self.name}

    @property
    def all_taints(self) -> list[Taint]:
        return [*self.taints, *self.startup_taints]


class Mig(SpecModel):
    """MIG partitioning (NVIDIA A100/H100/H200), applied per pool by the operator's
    mig-manager through the node label `nvidia.com/mig.config: all-<profile>`."""

    strategy: Literal["none", "single", "mixed"] = Field(
        default="none",
        description="The operator's/device plugin's MIG strategy: `single` advertises MIG "
        "slices as `nvidia.com/gpu`, `mixed` as `nvidia.com/mig-<profile>`; default `none`.",
    )
    profile: dict[str, str] = Field(
        default_factory=dict,
        description="Pool name -> the MIG profile every GPU of that pool is cut into, e.g. "
        "`1g.10gb`; default {}.",
    )


class TimeSlicing(SpecModel):
    """Time slicing: one GPU advertised as several, per pool through the node label
    `nvidia.com/device-plugin.config: <pool>`."""

    replicas: dict[str, int] = Field(
        default_factory=dict, description="Pool name -> replicas per GPU (at least 2); default {}."
    )


class Nvidia(ChartSource):
    """NVIDIA software: the GPU Operator or the bare device plugin (on OKE: OKE's add-on)."""

    mode: Literal["operator", "device-plugin"] | None = Field(
        default=None,
        description="`operator` (GPU Operator chart) or `device-plugin` (device plugin "
        "chart); default None: `operator`, and on `platform: oke` with `oke_addons` OKE's "
        "NvidiaGpuPlugin add-on (a chart mode there needs `oke_addons: false`).",
    )
    version: ChartVersion = Field(
        default=None,
        description="Chart version; default the pinned one (gpu-operator v26.7.0, "
        "nvidia-device-plugin 0.20.0). On OKE with `oke_addons`: the NvidiaGpuPlugin add-on's "
        "version (default None: the one OKE installs; Oracle recommends choosing one).",
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


class Amd(ChartSource):
    """AMD GPU device plugin (ROCm `amd-gpu` chart; on OKE OKE's AmdGpuPlugin add-on)."""

    version: ChartVersion = Field(
        default=None,
        description="Chart version; default 0.21.0. On OKE with `oke_addons`: the AmdGpuPlugin "
        "add-on's version (default None: the one OKE installs; Oracle recommends choosing one).",
    )


class Neuron(ChartSource):
    """AWS Neuron device plugin (the Neuron Helm chart)."""

    version: ChartVersion = Field(default=None, description="Chart version; default 1.0.0.")
    scheduler: bool = Field(default=False, description="Neuron scheduler extension; default false.")


class Efa(ChartSource):
    """The AWS EFA device plugin (`aws-efa-k8s-device-plugin` chart, aws/eks-charts): without
    it no node advertises `vpc.amazonaws.com/efa` and pods asking for it never schedule."""

    enabled: Literal["auto"] | bool = Field(
        default="auto",
        description="`auto` (install it when a served pool has `efa`), true (required: a "
        "served pool must have `efa`) or false (never: EFA pods then need a plugin installed "
        "elsewhere); default `auto`.",
    )
    version: ChartVersion = Field(default=None, description="Chart version; default v0.5.30.")
    namespace: DnsLabel | None = Field(
        default=None,
        description="Namespace of its release (a DNS label); default the stack's `namespace`, else "
        "`kube-system`.",
    )


class AcceleratorStackArgs(SpecModel):
    """The device software for a set of pools: vendors derived from their accelerators."""

    platform: Platform = Field(
        description="`eks`, `rosa`, `oke` or `generic`. Required. On `rosa` the GPU Operator "
        "runs as on OpenShift, without the chart's own Node Feature Discovery: Red Hat's NFD "
        "Operator (with a NodeFeatureDiscovery instance) must already run in the cluster, as "
        "the plan's Device software section says."
    )
    pools: list[ServedPool] = Field(
        min_length=1,
        description="The pools served: pool components (MachinePool, GpuSpotPool, "
        "SharedNodePool, KarpenterNodePool) or `ServedPool` mappings "
        "(`AcceleratorStack.served(pools)` gives them); names unique. Required.",
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
    efa: Efa = Field(
        default_factory=Efa,
        description="The EFA device plugin; default `{enabled: auto}`: installed on `eks` "
        "when a served pool has `efa`, on those pools' nodes only.",
    )
    namespace: DnsLabel | None = Field(
        default=None,
        description="Namespace of every release (a DNS label); default per vendor (`gpu-operator`, "
        "`nvidia-device-plugin`, `amd-gpu`, `kube-system` for Neuron and EFA).",
    )
    create_namespace: bool = Field(
        default=True, description="Helm creates the namespace; default true."
    )
    oke_addons: bool = Field(
        default=True,
        description="On `platform: oke`, NVIDIA and AMD pools get OKE's own `NvidiaGpuPlugin` / "
        "`AmdGpuPlugin` add-ons (tolerations and node affinity configured) instead of Helm "
        "charts; default true. False installs the charts as on other platforms.",
    )
    oke_cluster_id: Annotated[Any, wired(str)] = Field(
        default=None,
        description="OCID of the OKE cluster (or an Output) the add-ons go on; default None. "
        "Required with `platform: oke` and `oke_addons` when an NVIDIA or AMD pool is served "
        "(a fleet takes it from the pools' cluster).",
    )
    _cluster_ocid = field_validator("oke_cluster_id")(check_oke_cluster_id)
    oke_cluster_type: Literal["enhanced", "basic"] = Field(
        default="enhanced",
        description="The OKE cluster's type (an `OkeCluster`'s `cluster_type`); default "
        "`enhanced`. A `basic` cluster can't install add-ons, so there `oke_addons` must be "
        "false when an NVIDIA or AMD pool is served. A fleet takes it from the pools' cluster.",
    )

    @property
    def uses_oke_addons(self) -> bool:
        return self.platform == "oke" and self.oke_addons

    @property
    def efa_pools(self) -> list[ServedPool]:
        """The served pools with EFA, by name, when the EFA device plugin is to serve them."""
        if self.efa.enabled is False:
            return []
        return sorted((p for p in self.pools if p.efa), key=lambda p: p.name)

    @property
    def nvidia_mode(self) -> str:
        """`operator`, `device-plugin` or `oke-addon`: what serves the NVIDIA pools."""
        nv = self.nvidia or Nvidia()
        if self.uses_oke_addons:
            return "oke-addon"
        return nv.mode or "operator"

    @field_validator("pools", mode="before")
    @classmethod
    def _pool_components(cls, pools: Any) -> Any:
        """Pool components as users pass them, as what `AcceleratorStack.served` makes."""
        if not is_list(pools):
            return pools
        entries: list[Any] = []
        for index, pool in enumerate(pools):
            resolved = getattr(pool, "resolved", None)
            if resolved is not None and hasattr(resolved, "pool_name"):
                entries.append(served_pool(resolved))
            elif isinstance(pool, dict | ServedPool):
                entries.append(pool)
            else:
                raise PathError(
                    f"[{index}]",
                    f"{pool!r} is neither a pool component (MachinePool, GpuSpotPool, "
                    "SharedNodePool, KarpenterNodePool) nor a mapping of `ServedPool` fields "
                    "(`AcceleratorStack.served([pool, ...])` gives them)",
                )
        return entries

    @model_validator(mode="after")
    def _consistent(self) -> AcceleratorStackArgs:
        problems: list[Issue] = []
        names = [p.name for p in self.pools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            problems.append(
                Issue("pools", f"{dupes} are listed more than once; pool names must be unique")
            )
        vendors = vendors_of(self.pools)
        for option, vendor in (("amd", "amd"), ("neuron", "aws"), ("nvidia", "nvidia")):
            if getattr(self, option) is not None and vendor not in vendors:
                problems.append(Issue(option, f"set but no served pool has {vendor} accelerators"))
        if (
            self.uses_oke_addons
            and vendors & {"nvidia", "amd"}
            and self.oke_cluster_type == "basic"
        ):
            problems.append(
                Issue(
                    "oke_addons",
                    "true can't be used: OKE's GPU plugin add-ons need an enhanced cluster "
                    "and `oke_cluster_type` is 'basic' (basic clusters can't install "
                    "add-ons); set `oke_addons: false` to install the Helm charts",
                )
            )
        if self.uses_oke_addons and vendors & {"nvidia", "amd"} and self.oke_cluster_id is None:
            problems.append(
                Issue(
                    "oke_cluster_id",
                    "is required: OKE's GPU plugin add-ons go on a cluster (or set "
                    "`oke_addons: false` to install the Helm charts)",
                )
            )
        efa_pools = [p.name for p in self.pools if p.efa]
        if self.efa.enabled is True and not efa_pools:
            problems.append(Issue("efa.enabled", "true but no served pool has `efa`"))
        if efa_pools and self.platform != "eks" and self.efa.enabled is not False:
            problems.append(
                Issue(
                    "pools",
                    f"{efa_pools} have `efa`, which is EKS only (platform {self.platform!r})",
                )
            )
        if self.nvidia is not None:
            problems += self._nvidia_problems(self.nvidia)
        if problems:
            raise NestedIssues(problems)
        return self

    def _nvidia_problems(self, nv: Nvidia) -> list[Issue]:
        problems: list[Issue] = []
        by_name = {p.name: p for p in self.pools}
        mode = self.nvidia_mode
        if mode == "oke-addon":
            addon_refuses = {
                "nvidia.mode": nv.mode is not None,
                "nvidia.driver": nv.driver is True,
                "nvidia.mig.profile": bool(nv.mig.profile),
                "nvidia.time_slicing.replicas": bool(nv.time_slicing.replicas),
            }
            for where, refused in addon_refuses.items():
                if refused:
                    problems.append(
                        Issue(
                            where,
                            "is not something OKE's NvidiaGpuPlugin add-on can do (it takes "
                            "placement only); set `oke_addons: false` for the Helm chart",
                        )
                    )
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
                problems.append(
                    Issue(
                        where,
                        f"{profile!r} can't be used on pool {pool!r}, which is also time-sliced "
                        f"(`nvidia.time_slicing.replicas.{pool}`): a pool's GPUs are cut into "
                        "MIG slices or time-sliced, not both",
                    )
                )
            if mode == "device-plugin":
                problems.append(
                    Issue(
                        where,
                        f"{profile!r} needs the GPU Operator's mig-manager to partition the "
                        "GPUs; `nvidia.mode` is 'device-plugin'",
                    )
                )
        if nv.mig.profile and nv.mig.strategy == "none":
            problems.append(Issue("nvidia.mig.strategy", "'none' but MIG profiles are set"))
        for pool, replicas in sorted(nv.time_slicing.replicas.items()):
            where = f"nvidia.time_slicing.replicas.{pool}"
            if pool not in by_name:
                problems.append(Issue(where, f"{pool!r} is not a served pool"))
            elif replicas < 2:
                problems.append(Issue(where, f"{replicas!r} is below 2"))
            if pool == DEFAULT_PLUGIN_CONFIG:
                problems.append(
                    Issue(
                        where,
                        f"pool {pool!r} has the name of the device plugin's config for every "
                        "other node; rename the pool to time-slice it",
                    )
                )
        if mode == "device-plugin":
            for index, pool in enumerate(self.pools):
                acc = pool.accelerator
                if acc is not None and acc.vendor == "nvidia" and not pool.selector:
                    problems.append(
                        Issue(
                            f"pools[{index}].node_labels",
                            "{} selects no node: the device plugin chart selects its pools' "
                            "nodes by these labels",
                        )
                    )
        return problems


def vendors_of(pools: list[ServedPool]) -> set[str]:
    """The accelerator vendors (`nvidia`, `amd`, `aws`) of the pools."""
    return {p.accelerator.vendor for p in pools if p.accelerator is not None} & set(VENDOR_SOFTWARE)


def pools_of_vendor(spec: AcceleratorStackArgs, vendor: str) -> list[ServedPool]:
    """The served pools whose accelerators `vendor` makes, by name."""
    return sorted(
        (p for p in spec.pools if p.accelerator is not None and p.accelerator.vendor == vendor),
        key=lambda p: p.name,
    )


def uses_amd_chart(spec: AcceleratorStackArgs) -> bool:
    return bool(pools_of_vendor(spec, "amd")) and not spec.uses_oke_addons


def node_labels(spec: AcceleratorStackArgs) -> dict[str, dict[str, str]]:
    """Pool name -> the labels its nodes need for this device software to work on them:
    the named device-plugin config of a time-sliced pool, the MIG layout of a partitioned
    one, the shared label the AMD chart (or the EFA chart) selects its pools by. Pools needing none are left
    out. A fleet adds them to its pools; a program adds them to each pool's `labels`."""
    out: dict[str, dict[str, str]] = {}
    nv = spec.nvidia or Nvidia()
    for pool, _ in sorted(nv.time_slicing.replicas.items()):
        out.setdefault(pool, {})[DEVICE_PLUGIN_CONFIG_LABEL] = pool
    for pool, profile in sorted(nv.mig.profile.items()):
        # mig-manager's generated config names the uniform layouts `all-<profile>`.
        out.setdefault(pool, {})[MIG_CONFIG_LABEL] = f"all-{profile}"
    if uses_amd_chart(spec):
        for pool in pools_of_vendor(spec, "amd"):
            out.setdefault(pool.name, {})[DEVICE_SOFTWARE_LABEL] = "amd-gpu"
    for pool in spec.efa_pools:
        out.setdefault(pool.name, {})[EFA_LABEL] = "true"
    return {pool: dict(sorted(labels.items())) for pool, labels in sorted(out.items())}
