"""The pool checks called directly: each a plain function of (value, cluster, fields) that
returns every problem with its path from the args, reading the cloud's rules from its
`ClusterCapabilities` entry."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from nodepools.specs import MachinePoolArgs, SpecError, parse_spec
from nodepools.specs.clusters.capabilities import CAPABILITIES, ClusterCapabilities
from nodepools.specs.clusters.rosa import RosaCluster
from nodepools.specs.clusters.targets import EksCluster, OkeCluster
from nodepools.specs.core.base import Issue
from nodepools.specs.core.scaling import Scaling, Spot
from nodepools.specs.pools import checks
from nodepools.specs.pools.args import PoolArgsBase
from nodepools.specs.pools.capacity_reservation import CapacityReservation
from nodepools.specs.pools.network import PoolNetwork
from nodepools.specs.pools.node_settings import (
    BootVolume,
    MetadataOptions,
    NodeConfig,
    UpdatePolicy,
)
from nodepools.specs.pools.shared import SharedNodePoolArgs

from tests.conftest import EKS, OKE

SPECS = Path(__file__).resolve().parents[2] / "components" / "specs"
ROSA_ID = "2a8lld2m7drto9rj0c6umn9tb4d6f291"

eks = EksCluster.model_validate(EKS)
eks_al2 = EksCluster.model_validate({**EKS, "ami_type": "AL2_x86_64_GPU"})
oke = OkeCluster.model_validate(OKE)
oke_basic = OkeCluster.model_validate({**OKE, "cluster_type": "basic"})
rosa = RosaCluster.model_validate({"kind": "rosa", "cluster_id": ROSA_ID})
rosa_multi_az = RosaCluster.model_validate(
    {"kind": "rosa", "cluster_id": ROSA_ID, "multi_az": True}
)


def paths(issues: list[Issue]) -> list[str]:
    return [issue.path for issue in issues]


# -- what a cloud refuses ----------------------------------------------------------------


def test_a_field_a_cloud_has_no_setting_for_is_refused_with_its_value_and_why():
    [issue] = checks.check_update(UpdatePolicy(max_unavailable=2), rosa, {})
    assert issue == Issue(
        "update",
        "{'max_unavailable': 2} can't be used on ROSA Classic machine pools: OpenShift's "
        "machine config pool rolls nodes (its `maxUnavailable`, cluster-wide)",
    )
    assert checks.check_update(UpdatePolicy(max_unavailable=2), eks, {}) == []


def test_node_cycling_is_refused_on_a_basic_oke_cluster_only():
    update = UpdatePolicy(max_unavailable_percent=25)
    [issue] = checks.check_update(update, oke_basic, {})
    assert issue.message.startswith("{'max_unavailable_percent': 25} can't be used on OKE")
    assert "node cycling" in issue.message
    assert checks.check_update(update, oke, {}) == []


def test_parts_of_a_setting_are_refused_at_their_paths():
    volume = BootVolume(iops=4000, throughput=200, encrypted=False, size_gb=60)
    assert paths(checks.check_boot_volume(volume, oke, {})) == [
        "boot_volume.iops",
        "boot_volume.throughput",
        "boot_volume.encrypted",
    ]
    encrypted = checks.check_boot_volume(BootVolume(encrypted=False), oke, {})
    assert encrypted == [
        Issue(
            "boot_volume.encrypted",
            "False can't be used on OKE node pools: OCI always encrypts boot volumes; remove it",
        )
    ]
    rosa_issues = checks.check_boot_volume(BootVolume(kms_key_id="key", size_gb=200), rosa, {})
    assert paths(rosa_issues) == ["boot_volume.kms_key_id"]
    assert "'key' can't be used on ROSA Classic machine pools" in rosa_issues[0].message
    assert checks.check_boot_volume(volume, eks, {}) == []


def test_kubelet_settings_are_refused_on_oke_and_all_node_config_on_rosa():
    config = NodeConfig(max_pods=30, kubelet={"podsPerCore": 10})
    [kubelet] = checks.check_node_config(config, oke, {})
    assert kubelet.path == "node_config.kubelet"
    assert kubelet.message.startswith("{'podsPerCore': 10} can't be used on OKE node pools")
    assert checks.check_node_config(NodeConfig(max_pods=30), oke, {}) == []
    assert paths(checks.check_node_config(config, rosa, {})) == ["node_config"]
    assert paths(checks.check_node_config(config, eks_al2, {})) == ["node_config"]
    assert checks.check_node_config(config, eks, {}) == []


@pytest.mark.parametrize(
    ("check", "value"),
    [
        (checks.check_metadata_options, MetadataOptions(http_tokens="required")),
        (checks.check_auto_repair, True),
        (checks.check_release_version, "1.33.0-20250704"),
        (checks.check_ami_id, "ami-0123456789abcdef0"),
        (checks.check_availability_zone, "us-east-1a"),
        (checks.check_subnet_id, "subnet-0123456789abcdef0"),
        (checks.check_additional_security_group_ids, ["sg-0123456789abcdef0"]),
        (checks.check_network, PoolNetwork(efa=True)),
    ],
)
def test_what_oke_refuses_names_the_value(check, value):
    [issue] = check(value, oke, {})
    assert issue.message.startswith(f"{checks.quoted(value)} can't be used on OKE node pools: ")


def test_a_zone_is_chosen_on_a_multi_az_rosa_cluster_only():
    [issue] = checks.check_availability_zone("us-east-1a", rosa, {})
    assert "`multi_az` is false" in issue.message
    assert checks.check_availability_zone("us-east-1a", rosa_multi_az, {}) == []
    assert paths(checks.check_availability_zone("us-east-1a", eks, {})) == ["availability_zone"]


def test_a_subnet_and_a_zone_exclude_each_other():
    fields = {"availability_zone": "us-east-1a"}
    [issue] = checks.check_subnet_id("subnet-0123456789abcdef0", rosa_multi_az, fields)
    assert issue.path == "subnet_id" and "not both" in issue.message
    assert "'us-east-1a'" in issue.message


def test_a_custom_ami_reports_every_conflict_at_once():
    found = checks.check_ami_id(
        "ami-0123456789abcdef0", eks_al2, {"release_version": "1.33.0-20250704"}
    )
    assert paths(found) == ["ami_id", "ami_id", "ami_id"]
    assert "`cluster.ami_type` 'AL2_x86_64_GPU'" in found[0].message
    assert "`release_version` '1.33.0-20250704'" in found[1].message
    assert "`cluster.endpoint`" in found[2].message


def test_a_capacity_reservation_follows_the_clouds_reservations():
    block = CapacityReservation(type="capacity_block", ids=["cr-0123456789abcdef0"])
    [refused] = checks.check_capacity_reservation(block, rosa, {})
    assert refused.path == "capacity_reservation"
    assert "OCM machine pools have no capacity reservation setting" in refused.message
    on_oke = checks.check_capacity_reservation(block, oke, {"cluster": oke})
    assert paths(on_oke) == ["capacity_reservation.type", "capacity_reservation.ids[0]"]
    with_spot = checks.check_capacity_reservation(block, eks, {"spot": Spot(), "autoscaling": None})
    assert "exclude each other" in with_spot[0].message


# -- node counts, spot, the instance type ---------------------------------------------------


def test_node_count_problem_says_the_maximum_and_the_multiple():
    assert "more than the 180 nodes" in (checks.node_count_problem(181, rosa) or "")
    assert checks.node_count_problem(4, rosa_multi_az) == (
        "4 must be a multiple of 3 for ROSA Classic machine pools: a multi-AZ cluster "
        "spreads every machine pool evenly over its 3 availability zones"
    )
    assert checks.node_count_problem(4, rosa_multi_az, single_zone=True) is None
    assert "1,000 nodes" in (checks.node_count_problem(1500, oke_basic) or "")
    assert checks.node_count_problem(1500, oke) is None


def test_autoscaling_bounds_are_each_checked_and_exclusive_with_replicas():
    scaling = Scaling(min_replicas=1, max_replicas=4)
    assert paths(checks.check_autoscaling(scaling, rosa_multi_az, {"cluster": rosa_multi_az})) == [
        "autoscaling.min_replicas",
        "autoscaling.max_replicas",
    ]
    pinned = {"cluster": rosa_multi_az, "subnet_id": "subnet-0123456789abcdef0"}
    assert checks.check_autoscaling(scaling, rosa_multi_az, pinned) == []
    assert checks.check_autoscaling(scaling, eks, {"replicas": 2}) == [
        Issue("autoscaling", checks.REPLICAS_AND_AUTOSCALING)
    ]
    required = checks.check_replicas_or_autoscaling(None, eks, {"replicas": None})
    assert required == [Issue("autoscaling", checks.REPLICAS_OR_AUTOSCALING)]
    # A `replicas` that failed its own validation is absent: nothing is assumed of it.
    assert checks.check_replicas_or_autoscaling(None, eks, {}) == []


def test_spot_is_checked_against_the_clouds_spot_capacity():
    [price] = checks.check_spot(Spot(max_price=0.5), eks, {"instance_type": "g5.xlarge"})
    assert price.path == "spot.max_price"
    assert price.message.startswith("0.5 can't be used: EKS managed node groups can't cap")
    assert checks.check_spot(Spot(max_price=0.5), rosa, {"instance_type": "g5.xlarge"}) == []
    [bare_metal] = checks.check_spot(Spot(), oke, {"instance_type": "BM.GPU.A10.4"})
    assert bare_metal == Issue(
        "spot",
        "{} can't be used on OKE node pools with the bare-metal shape 'BM.GPU.A10.4': OCI "
        "preemptible capacity does not support bare metal instances; set `spot: null` for "
        "on-demand nodes, or use a VM shape for spot",
    )
    assert checks.check_spot(Spot(), oke, {"shape": "VM.GPU.A10.1"}) == []


def test_an_instance_mix_is_refused_where_a_pool_runs_one_type():
    [issue] = checks.check_instance_types(["g5.xlarge", "g5.2xlarge"], rosa, {})
    assert issue.path == "instance_types"
    assert "ROSA Classic machine pools: they run one instance type per pool" in issue.message
    assert checks.check_instance_types(["g5.xlarge", "g5.2xlarge"], eks, {}) == []
    mixed = checks.check_instance_types(["g5.xlarge", "g5g.xlarge"], eks, {})
    assert paths(mixed) == ["instance_types"]
    assert "one CPU architecture" in mixed[0].message


def test_an_unknown_cluster_keeps_every_cloud_rule_silent():
    assert checks.check_update(UpdatePolicy(max_unavailable=1), None, {}) == []
    assert checks.check_spot(Spot(max_price=1.0), None, {"instance_type": "BM.GPU.A10.4"}) == []
    assert checks.node_count_problem(10**9, None) is None
    assert checks.check_release_version("1.26.2-5d2b4b5e", None, {}) == []


# -- the args run them all, whatever the order of their fields ------------------------------


def test_the_checks_run_beside_the_fields_own_errors():
    with pytest.raises(SpecError) as caught:
        parse_spec(
            MachinePoolArgs,
            {
                "cluster": OKE,
                "instance_type": "VM.GPU.A10.1",
                "replicas": "1",  # its own error: `replicas` is left out of the checks
                "labels": {"bad key": "x"},
                "update": {"max_unavailable": 1},
                "auto_repair": True,
            },
            "p",
        )
    assert caught.value.paths() == ["replicas", 'labels["bad key"]', "auto_repair"]


@pytest.mark.parametrize("args_model", [PoolArgsBase, SharedNodePoolArgs])
def test_every_refused_path_is_a_field_of_the_pool_args(args_model: Any):
    from pydantic import BaseModel

    entries: list[ClusterCapabilities] = []
    for caps in CAPABILITIES.values():
        entries += [caps, *(v for v in (caps.basic, caps.multi_az) if v is not None)]
    for caps in entries:
        for path in [*caps.refused, *caps.refused_values]:
            field, _, part = path.partition(".")
            if field == "instance_types" and args_model is SharedNodePoolArgs:
                continue  # refused by the shared pool itself
            assert field in args_model.model_fields, (caps.title, path)
            if part:
                annotation = args_model.model_fields[field].annotation
                models = [a for a in getattr(annotation, "__args__", ()) if isinstance(a, type)]
                model = next(m for m in models if issubclass(m, BaseModel))
                assert part in model.model_fields, (caps.title, path)


# -- one place for the cloud's rules ----------------------------------------------------------


def _modules(package: str) -> list[Path]:
    return sorted((SPECS / package).glob("*.py"))


@pytest.mark.parametrize("path", _modules("clusters"), ids=lambda p: p.name)
def test_clusters_never_import_pools(path: Path):
    tree = ast.parse(path.read_text())
    imported = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    ] + [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    assert not [name for name in imported if name.startswith("nodepools.specs.pools")]


@pytest.mark.parametrize(
    "path", [*_modules("clusters"), *_modules("pools")], ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_no_rule_tests_the_clusters_kind(path: Path):
    # The cloud's rules are read from its `ClusterCapabilities`, never from `kind == "oke"`.
    tree = ast.parse(path.read_text())
    kinds = {"eks", "oke", "rosa"}
    compared = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(
            (isinstance(side, ast.Constant) and side.value in kinds)
            or (
                isinstance(side, ast.Tuple | ast.List | ast.Set)
                and any(isinstance(e, ast.Constant) and e.value in kinds for e in side.elts)
            )
            for side in [node.left, *node.comparators]
        )
    ]
    assert compared == []


# -- the resolved pool ------------------------------------------------------------------------


def test_eks_label_and_taint_limits_count_the_pools_defaults():
    from nodepools.specs.pools.args import GpuSpotPoolArgs
    from nodepools.specs.pools.resolve import resolve_gpu_spot_pool
    from nodepools.specs.pools.resolved_checks import resolved_pool_issues

    key = "team.example.com/" + "n" * 47  # 64 characters: Kubernetes takes it, EKS does not
    args = {"instance_type": "g5.xlarge", "labels": {key: ""}}
    args["taints"] = [f"t{i}=v:NoSchedule" for i in range(49)]  # 51 with the GPU and spot taints
    pool = resolve_gpu_spot_pool(GpuSpotPoolArgs.model_validate({"cluster": EKS, **args}), "gpu")
    assert paths(resolved_pool_issues(pool)) == [f'labels["{key}"]', f'labels["{key}"]', "taints"]
    on_oke = {**args, "instance_type": "VM.GPU.A10.1"}
    oke_pool = resolve_gpu_spot_pool(
        GpuSpotPoolArgs.model_validate({"cluster": OKE, **on_oke}), "gpu"
    )
    assert resolved_pool_issues(oke_pool) == []


def test_what_the_library_adds_never_trips_a_clouds_limits():
    from nodepools.specs.catalog.accelerators import CATALOG
    from nodepools.specs.pools.args import GpuSpotPoolArgs
    from nodepools.specs.pools.resolve import resolve_gpu_spot_pool
    from nodepools.specs.pools.resolved_checks import label_limit_issues
    from nodepools.specs.pools.shared import resolve_shared_pool

    name = "p" * 63  # the longest pool name
    for instance_type in sorted(t for t in CATALOG if not t.startswith(("VM.", "BM."))):
        gpu = GpuSpotPoolArgs.model_validate({"cluster": EKS, "instance_type": instance_type})
        shared = SharedNodePoolArgs.model_validate(
            {"cluster": EKS, "shape": instance_type, "size": 1, "boot_volume_gb": 200}
            | {"selector": "s" * 63, "spot": {}}
        )
        for pool in (resolve_gpu_spot_pool(gpu, name), resolve_shared_pool(shared, name)):
            assert label_limit_issues(pool, CAPABILITIES["eks"]) == [], instance_type
