"""Properties of KarpenterNodePool's spec: valid args always render manifests the API server
would accept; invalid args always fail with a SpecError raised by the spec's own rules
(never another exception, never only the manifest backstop)."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nodepools.backends.karpenter import render_manifests
from nodepools.pools.karpenter_node_pool import prepare_pool
from nodepools.specs import SpecError
from nodepools.specs.catalog.accelerators import AWS_NEURON, CATALOG, NVIDIA_GPU
from nodepools.specs.catalog.instance_types import catalog_names, instance_type
from nodepools.specs.karpenter.restrictions import restricted_tag_problem
from nodepools.validation import validate_manifest

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

NAME = st.from_regex(r"[a-z]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
LABEL_VALUE = st.from_regex(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?)?", fullmatch=True)
LABEL_KEY = st.one_of(
    NAME.filter(lambda n: n != "pool"),
    st.builds(lambda prefix, name: f"{prefix}/{name}", st.sampled_from(["example.com", "ml.acme.io"]), NAME),
    # Reserved-domain keys a pool may carry (requirement keys have args of their own).
    st.sampled_from(
        [
            "kubernetes.io/os",
            "topology.kubernetes.io/zone",
            "node.kubernetes.io/lifecycle",
            "kubelet.kubernetes.io/team",
        ]
    ),
)  # fmt: skip
TAINT = st.builds(
    lambda key, value, effect: {"key": key, "value": value, "effect": effect},
    LABEL_KEY,
    st.one_of(st.none(), LABEL_VALUE),
    st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
)


def _identity(taint: dict[str, Any]) -> tuple[str, str]:
    return taint["key"], taint["effect"]


DURATION = st.one_of(st.just("Never"), st.from_regex(r"([0-9]{1,3}(s|m|h)){1,2}", fullmatch=True))
GRACE = st.from_regex(r"([0-9]{1,3}(s|m|h)){1,2}", fullmatch=True)
TAG_KEY = st.from_regex(r"[A-Za-z][A-Za-z0-9 ._:/=+@-]{0,20}", fullmatch=True).filter(
    lambda key: restricted_tag_problem(key) is None and not key.lower().startswith("aws:")
)
TAG_VALUE = st.from_regex(r"[A-Za-z0-9 ._:/=+@-]{1,20}", fullmatch=True)
SELECTOR = st.dictionaries(TAG_KEY, st.one_of(TAG_VALUE, st.just("*")), min_size=1, max_size=3)

# EC2 types only: Karpenter refuses OCI shapes, and fractional GPUs (g6f, gr6f: a vGPU
# profile such as `L4-3Q`), which it counts as 0 GPUs.
NVIDIA_TYPES = sorted(
    t
    for t, a in CATALOG.items()
    if a.resource == NVIDIA_GPU
    and not t.startswith(("VM.", "BM."))
    and not re.search(r"-\d+Q$", a.model)
)
NEURON_TYPES = sorted(t for t, a in CATALOG.items() if a.resource == AWS_NEURON)


def _subset(values: list[str]) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(values), min_size=1, max_size=4, unique=True)


@st.composite
def node_classes(draw: Any) -> dict[str, Any]:
    node_class: dict[str, Any] = {
        "subnet_selector_tags": draw(st.one_of(SELECTOR, st.lists(SELECTOR, min_size=1, max_size=3))),
        "security_group_selector_tags": draw(SELECTOR),
        "ami_alias": draw(st.sampled_from(["al2023@latest", "al2@latest", "bottlerocket@latest", "bottlerocket@v1.30.0", "windows2022@latest", "al2023@v20240807"])),
    }  # fmt: skip
    if draw(st.booleans()):
        node_class["role"] = draw(
            st.from_regex(r"[A-Za-z][A-Za-z0-9+=,.@_-]{0,30}", fullmatch=True)
        )
    else:
        node_class["instance_profile"] = draw(st.from_regex(r"[A-Za-z][\w+=,.@-]{0,30}", fullmatch=True, alphabet=st.characters(codec="ascii")))  # fmt: skip
    optional = {
        # At least every alias's AMI snapshot (Windows: 50 GiB), as EC2 requires.
        "boot_volume_gb": st.integers(50, 16384),
        "tags": st.dictionaries(TAG_KEY, st.from_regex(r"[A-Za-z0-9 ._:/=+@-]{0,20}", fullmatch=True), max_size=3),
        "detailed_monitoring": st.booleans(),
        "instance_store_policy": st.just("RAID0"),
    }  # fmt: skip
    for field, strategy in optional.items():
        if draw(st.booleans()):
            node_class[field] = draw(strategy)
    return node_class


@st.composite
def instance_choices(draw: Any) -> tuple[dict[str, Any], str | None, int]:
    """Requirements on instances, the accelerator they may launch (or None), and the step
    an accelerator limit must be a multiple of."""
    mode = draw(st.sampled_from(["any", "cpu", "nvidia", "neuron", "gpu-reqs", "neuron-reqs", "families", "categories", "mixed"]))  # fmt: skip
    if mode == "any":
        return {}, None, 1
    if mode == "mixed":
        # Accelerator values next to CPU-only ones: the pool must list the taint itself.
        key, accelerated, cpu_only, resource = draw(st.sampled_from([("instance_types", ["g5.xlarge", "g5.12xlarge"], ["m5.large", "c5.xlarge"], NVIDIA_GPU), ("instance_families", ["g5", "p4d"], ["m5", "c5"], NVIDIA_GPU), ("instance_categories", ["inf", "trn"], ["c", "m"], AWS_NEURON)]))  # fmt: skip
        chosen = draw(_subset(accelerated)) + draw(_subset(cpu_only))
        taint = {"key": resource, "value": "true", "effect": draw(st.sampled_from(["NoSchedule", "NoExecute"]))}  # fmt: skip
        return {key: chosen, "taints": [taint]}, resource, 1
    if mode == "cpu":
        key, values = draw(st.sampled_from([("instance_types", ["m5.large", "c5.xlarge", "r5.2xlarge"]), ("instance_families", ["m5", "c5", "r5", "m6i"]), ("instance_categories", ["c", "m", "r"])]))  # fmt: skip
        return {key: draw(_subset(values))}, None, 1
    if mode in ("nvidia", "neuron"):
        types = draw(_subset(NVIDIA_TYPES if mode == "nvidia" else NEURON_TYPES))
        step = math.gcd(*(CATALOG[t].count for t in types))
        return {"instance_types": types}, CATALOG[types[0]].resource, step
    if mode == "gpu-reqs":
        args: dict[str, Any] = {"gpu_count": draw(st.sampled_from([1, 2, 4, 8]))}
        maker = draw(st.sampled_from([None, "nvidia", "amd"]))
        if draw(st.booleans()):
            # Names of the maker's GPUs: an AMD pool asking for an NVIDIA name is an error.
            names = ["radeon-pro-v520"] if maker == "amd" else ["t4", "a10g", "l4", "h100"]
            args["gpu_names"] = draw(_subset(names))
        if maker:
            args["gpu_manufacturers"] = [maker]
        resource = "amd.com/gpu" if maker == "amd" else NVIDIA_GPU
        return args, resource, args["gpu_count"]
    if mode == "neuron-reqs":
        args = {"neuron_names": draw(_subset(["trainium", "trainium2", "inferentia2"]))}
        if draw(st.booleans()):
            args["neuron_count"] = draw(st.sampled_from([1, 6, 12, 16]))
        return args, AWS_NEURON, args.get("neuron_count", 1)
    if mode == "families":
        families, resource = draw(st.sampled_from([(["g5", "g6", "p4d"], NVIDIA_GPU), (["trn1", "inf2", "trn2"], AWS_NEURON)]))  # fmt: skip
        return {"instance_families": draw(_subset(families))}, resource, 1
    categories, resource = draw(st.sampled_from([(["p"], NVIDIA_GPU), (["g", "p"], NVIDIA_GPU), (["trn", "inf"], AWS_NEURON)]))  # fmt: skip
    return {"instance_categories": draw(_subset(categories))}, resource, 1


BUDGET = st.builds(
    lambda nodes, window, reasons: {
        "nodes": nodes,
        **(window or {}),
        **({"reasons": reasons} if reasons else {}),
    },
    st.one_of(st.integers(0, 1000), st.integers(0, 100).map(lambda n: f"{n}%")),
    st.one_of(
        st.none(),
        st.builds(
            lambda schedule, duration: {"schedule": schedule, "duration": duration},
            st.sampled_from(["@daily", "@hourly", "0 9 * * 1-5", "*/30 * * * *"]),
            st.from_regex(r"[1-9][0-9]?h([1-5][0-9]m)?|[1-9][0-9]?m", fullmatch=True),
        ),
    ),
    st.lists(st.sampled_from(["Underutilized", "Empty", "Drifted"]), max_size=3, unique=True),
)


def _runs_on(requirements: dict[str, Any], arches: list[str]) -> bool:
    """Whether some pinned type (or family) of `requirements` runs on one of `arches`."""
    kube = {"x86_64": "amd64", "arm64": "arm64"}
    names = set(requirements.get("instance_types", []))
    families = set(requirements.get("instance_families", []))
    names |= {n for n in catalog_names() if n.split(".", 1)[0] in families}
    found = {kube[info.arch] for n in names if (info := instance_type(n)) is not None}
    return not names or bool(found & set(arches))


@st.composite
def valid_args(draw: Any) -> dict[str, Any]:
    requirements, resource, step = draw(instance_choices())
    args: dict[str, Any] = dict(requirements)
    if draw(st.booleans()):
        args["node_class"] = draw(node_classes())
    else:
        args["node_class_name"] = draw(NAME)
    capacity = draw(st.lists(st.sampled_from(["spot", "on-demand"]), min_size=1, max_size=2, unique=True))  # fmt: skip
    if draw(st.booleans()):
        args["capacity_types"] = capacity
    if ("spot" in capacity or "capacity_types" not in args) and draw(st.booleans()):
        args["spot"] = {}
    if draw(st.booleans()):
        # Architectures none of the pinned types or families runs on are an error.
        arches = draw(_subset(["amd64", "arm64"]))
        args["architectures"] = arches if _runs_on(requirements, arches) else ["amd64", "arm64"]
    args["labels"] = draw(st.dictionaries(LABEL_KEY, LABEL_VALUE, max_size=4))
    # One taint per key and effect (two are an error, tested on their own).
    taints = requirements.get("taints", []) + draw(st.lists(TAINT, max_size=3))
    args["taints"] = list({(t["key"], t["effect"]): t for t in reversed(taints)}.values())
    args["startup_taints"] = draw(st.lists(TAINT, max_size=2, unique_by=_identity))
    limits: dict[str, Any] = {}
    if draw(st.booleans()):
        limits["cpu"] = draw(st.one_of(st.integers(0, 10000), st.integers(1, 9999).map(lambda n: f"{n}m")))  # fmt: skip
    if draw(st.booleans()):
        limits["memory"] = draw(st.integers(1, 9999).map(lambda n: f"{n}Gi"))
    if draw(st.booleans()):
        limits["nodes"] = draw(st.integers(0, 100))
    if resource is not None:  # required for the accelerator a pool may launch
        limits[resource] = step * draw(st.integers(0, 16))
    args["limits"] = limits
    disruption: dict[str, Any] = {}
    if draw(st.booleans()):
        disruption["consolidation_policy"] = draw(st.sampled_from(["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"]))  # fmt: skip
    if draw(st.booleans()):
        disruption["consolidate_after"] = draw(DURATION)
    if draw(st.booleans()):
        disruption["budgets"] = draw(st.lists(BUDGET, min_size=1, max_size=3))
    args["disruption"] = disruption
    optional = {"weight": st.integers(1, 100), "expire_after": DURATION, "termination_grace_period": GRACE, "pool_name": NAME}  # fmt: skip
    for field, strategy in optional.items():
        if draw(st.booleans()):
            args[field] = draw(strategy)
    return args


@SETTINGS
@given(valid_args())
def test_valid_args_render_manifests_the_api_server_accepts(args: dict[str, Any]) -> None:
    pool, manifests = prepare_pool(args, "generated", "generated pool")
    for manifest in manifests.values():
        assert validate_manifest(manifest) == [], manifest
    assert render_manifests(pool) == manifests  # rendering is a pure function of the pool
    taint_keys = {t.key for t in pool.taints}
    if pool.profile.launchable is not None and args.get("taints") != []:
        # (`taints: []` given explicitly means no taint at all; the policy pack reports it.)
        assert pool.profile.launchable in taint_keys
        assert pool.profile.launchable in pool.limits


# Per field, values one rule away from valid, which random values rarely hit.
NEAR_MISSES: dict[str, list[Any]] = {
    "node_class_name": ["", "Default", "a_b", "x" * 254],
    "capacity_types": [["reserved"], ["cheap"]],
    "spot": [{"max_price": 0.5}, {"max_price": 0}],
    "instance_types": [[], ["g5.xlarge", "trn1.2xlarge"], ["g5/xl"], [""], ["g5.12xlarge", "m5.large"]],
    "instance_families": [["g5", "g4ad"], ["p4d", "trn1"]],
    "instance_categories": [["p", "inf"], ["g", "trn"], ["inf", "m"]],
    "architectures": [["x86_64"], []],
    "gpu_count": [0, -1, 3],
    "gpu_manufacturers": [["nvidia", "amd"], ["NVIDIA"]],
    "gpu_names": [["A10G"], [""]],
    "neuron_count": [0, 7],
    "neuron_names": [["Trainium"]],
    "labels": [
        {"karpenter.sh/nodepool": "x"}, {"kubernetes.io/hostname": "a"},
        {"karpenter.k8s.aws/instance-colour": "x"}, {"nodepools.dev/pool": "x"},
        {"x.karpenter.sh/y": "z"}, {"k": "-bad-"}, {f"l{i}": "v" for i in range(100)},
        {"karpenter.k8s.aws/instance-family": "g5"}, {"karpenter.sh/capacity-type": "spot"},
        {"kubernetes.io/arch": "amd64"}, {"karpenter.k8s.aws/instance-cpu": "8"},
        {"kubernetes.io/role": "gpu"},
    ],
    "taints": [["bad taint"], ["k=v:Sometimes"], [{"key": "k", "effect": "NoSchedule", "x": 1}]],
    "startup_taints": [["k=v w:NoSchedule"]],
    "limits": [
        # ({} and {"cpu": 8} on a GPU pool are accepted: the pack's karpenter-limits advises.)
        {"nvidia.com/gpu": 3}, {"aws.amazon.com/neuron": 5}, {"amd.com/gpu": 1},
        {"cpu": "-1"}, {"nodes": "1.5"}, {"cpus": 1}, {"memory": "64 Gi"}, {"cpu": True},
    ],
    "disruption": [
        {"budgets": [{"schedule": "@daily"}]}, {"budgets": [{"duration": "1h"}]},
        {"budgets": [{"nodes": "101%"}]}, {"budgets": [{"schedule": "@daily", "duration": "10s"}]},
        {"budgets": [{"schedule": "daily", "duration": "1h"}]}, {"budgets": [{"reasons": []}]},
        {"consolidate_after": "10 m"}, {"consolidation_policy": "Always"}, {"budgets": []},
    ],
    "weight": [0, 101],
    "expire_after": ["", "30d", "-1h"],
    "termination_grace_period": ["Never", "0"],
    "pool_name": ["Pool", "9pool", "p" * 64],
    "node_class.role": ["", "arn:aws:iam::123456789012:user/x", "a b"],
    "node_class.instance_profile": ["x"],
    "node_class.ami_alias": ["al2", "al2023@", "windows2019@v2", "ubuntu@latest", "a" * 31],
    "node_class.subnet_selector_tags": [[], {}, [{}], {"k": ""}, [{f"t{i}": "v" for i in range(21)}]],
    "node_class.security_group_selector_tags": [{"": "v"}, [{"k": str(i)} for i in range(31)]],
    "node_class.boot_volume_gb": [0, 16385, 10],
    "node_class.tags": [
        {"eks:eks-cluster-name": "x"}, {"kubernetes.io/cluster/x": "owned"},
        {"karpenter.sh/nodeclaim": "x"}, {"aws:x": "y"}, {"": "v"}, {"k": "v" * 257},
    ],
    "node_class.instance_store_policy": ["RAID1"],
    "node_class.capacity_reservation_selector_terms": [
        [], [{}], [{"id": "cr-1", "tags": {"a": "b"}}], [{"id": "r-1"}], [{"owner_id": "1"}],
        [{"instance_match_criteria": "any"}], [{"tags": {"a": ""}}], [{"id": "cr-1"}] * 31,
    ],
    "node_class.placement_group": [{}, {"id": "pg-1", "name": "x"}, {"id": "x"}, {"name": ""}],
    "node_class.network_interfaces": [
        [{"network_card_index": 0, "device_index": 1, "interface_type": "efa-only"}],
        [{"network_card_index": 0, "device_index": 0, "interface_type": "efa"}],
        [{"network_card_index": -1, "device_index": 0, "interface_type": "interface"}],
    ],
    "node_class.metadata_options": [
        {"http_tokens": "sometimes"}, {"http_put_response_hop_limit": 0},
        {"http_put_response_hop_limit": 65}, {"http_endpoint": "on"}, {"x": 1},
    ],
    "node_class.annotations": [{"bad key": "x"}, {"a/b/c": "x"}, {"k": "v" * 300_000}],
    "node_class.ami_selector_terms": [[{"name": "ab"}], [{"name": "a|b"}], [{}], []],
    "annotations": [{"bad key": "x"}, {"": "x"}],
    "efa": ["yes", 1],
}  # fmt: skip
GARBAGE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 100_000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.one_of(st.text(max_size=8), st.integers(-2, 20)), max_size=3),
    st.dictionaries(st.text(max_size=10), st.one_of(st.text(max_size=8), st.integers(-2, 20), st.none()), max_size=3),
)  # fmt: skip
FIELDS = [
    "node_class", "node_class_name", "capacity_types", "spot", "instance_types",
    "instance_families", "instance_categories", "architectures", "gpu_count",
    "gpu_manufacturers", "gpu_names", "neuron_count", "neuron_names", "labels", "taints",
    "startup_taints", "limits", "disruption", "weight", "expire_after",
    "termination_grace_period", "pool_name", "efa", "annotations", "unknown_field",
]  # fmt: skip
NODE_CLASS_FIELDS = [
    "role", "instance_profile", "ami_alias", "subnet_selector_tags",
    "security_group_selector_tags", "boot_volume_gb", "tags", "detailed_monitoring",
    "instance_store_policy", "capacity_reservation_selector_terms", "placement_group",
    "network_interfaces", "annotations", "ami_selector_terms", "metadata_options",
]  # fmt: skip


@st.composite
def mutated_args(draw: Any) -> Any:
    args = draw(valid_args())
    for _ in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from(FIELDS + [f"node_class.{f}" for f in NODE_CLASS_FIELDS]))
        near_misses = NEAR_MISSES.get(target)
        if near_misses and draw(st.booleans()):
            value = draw(st.sampled_from(near_misses))
        else:
            value = draw(GARBAGE)
        field = target.removeprefix("node_class.")
        if target.startswith("node_class.") and isinstance(args.get("node_class"), dict):
            args["node_class"] = {**args["node_class"], field: value}
        else:
            args[field] = value
    return args


@SETTINGS
@given(mutated_args())
def test_invalid_args_fail_with_a_spec_error_from_the_spec_rules(args: Any) -> None:
    try:
        _, manifests = prepare_pool(args, "generated", "generated pool")
    except SpecError as exc:
        assert exc.issues
        # Every problem is caught by the spec's own rules, with an arg path; the manifest
        # validation behind them is a backstop that never has to speak.
        assert not [i for i in exc.issues if i.path.startswith("manifests.")], exc
        return
    for manifest in manifests.values():
        assert validate_manifest(manifest) == []


def _base_args() -> dict[str, Any]:
    return {
        "node_class": {
            "role": "KarpenterNodeRole-ml",
            "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
            "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
        },
        "instance_types": ["g5.12xlarge", "g6.12xlarge"],
        "limits": {"nvidia.com/gpu": 8},
    }


NEAR_MISS_CASES = [(target, value) for target, values in NEAR_MISSES.items() for value in values]


@pytest.mark.parametrize(
    ("target", "value"),
    NEAR_MISS_CASES,
    ids=[f"{target}-{index}" for index, (target, _) in enumerate(NEAR_MISS_CASES)],
)
def test_each_near_miss_is_caught_by_the_rule_of_its_field(target: str, value: Any) -> None:
    args = _base_args()
    field = target.removeprefix("node_class.")
    if target.startswith("node_class."):
        args["node_class"][field] = value
    else:
        args[field] = value
    with pytest.raises(SpecError) as raised:
        prepare_pool(args, "near-miss", "near-miss pool")
    paths = [issue.path for issue in raised.value.issues]
    assert any(path.startswith(target.split(".")[0]) for path in paths), paths
    assert not [path for path in paths if path.startswith("manifests.")], raised.value
