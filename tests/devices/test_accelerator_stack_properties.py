"""Properties of AcceleratorStack: any args either fail with a SpecError (paths and all) or
plan releases whose every value exists in the pinned chart, whose pods tolerate every taint
of each served pool and select its nodes (and no CPU pool's), whatever the platform, mode,
taints, MIG and time slicing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nodepools
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nodepools.specs import SpecError
from nodepools.specs.catalog.accelerators import lookup_accelerator
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.devices.args import MIG_PROFILES, AcceleratorStackArgs
from nodepools.specs.devices.placement import advertised, modeled_nodes, planned_daemons
from nodepools.specs.devices.releases import plan_releases

from tests.devices.test_accelerator_stack import leaf_paths

KEYS = json.loads(
    (Path(nodepools.__file__).parent / "specs/devices/data/chart_values_keys.json").read_text()
)
SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TYPES = [
    "g5.2xlarge",
    "p4d.24xlarge",
    "p5.48xlarge",
    "BM.GPU.H100.8",
    "BM.GPU.MI300X.8",
    "trn1.2xlarge",
    "trn2.48xlarge",
    "inf2.xlarge",
    "m5.large",
]
TAINT = st.builds(
    lambda key, value, effect: {"key": key, "value": value, "effect": effect},
    st.sampled_from(["nvidia.com/gpu", "amd.com/gpu", "team", "example.com/dedicated"]),
    st.sampled_from([None, "true", "ml"]),
    st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
)


@st.composite
def stack_args(draw: st.DrawFn) -> dict[str, Any]:
    types = draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=4))
    pools: list[dict[str, Any]] = []
    for index, instance_type in enumerate(types):
        pool: dict[str, Any] = {
            "name": f"p{index}",
            "accelerator": lookup_accelerator(instance_type),
            "taints": draw(st.lists(TAINT, max_size=3)),
            "startup_taints": draw(st.lists(TAINT, max_size=1)),
            "instance_types": [instance_type],
        }
        if draw(st.booleans()):
            pool["node_labels"] = {"example.com/pool": f"p{index}"}
        pools.append(pool)
    args: dict[str, Any] = {
        "platform": draw(st.sampled_from(["eks", "rosa", "oke", "generic"])),
        "pools": pools,
        "oke_addons": draw(st.booleans()),
    }
    if draw(st.booleans()):
        args["oke_cluster_id"] = "ocid1.cluster.oc1..x"
    if draw(st.booleans()):
        mig_pools = [
            p["name"] for p in pools if p["accelerator"] and p["accelerator"].model in MIG_PROFILES
        ]
        sliced = draw(
            st.lists(st.sampled_from([p["name"] for p in pools]), max_size=2, unique=True)
        )
        profiles = (
            {
                name: draw(
                    st.sampled_from(
                        sorted(MIG_PROFILES[lookup_accelerator(types[int(name[1:])]).model])
                    )
                )  # type: ignore[union-attr]
                for name in draw(st.lists(st.sampled_from(mig_pools), max_size=2, unique=True))
            }
            if mig_pools
            else {}
        )
        args["nvidia"] = {
            "mode": draw(st.sampled_from([None, "operator", "device-plugin"])),
            "mig": {
                "strategy": draw(st.sampled_from(["none", "single", "mixed"])),
                "profile": profiles,
            },
            "time_slicing": {"replicas": {name: draw(st.integers(1, 8)) for name in sliced}},
        }
    return args


@SETTINGS
@given(stack_args())
def test_valid_args_plan_releases_that_serve_every_pool_and_no_cpu_node(args: dict[str, Any]):
    try:
        spec = parse_spec(AcceleratorStackArgs, args, "AcceleratorStack 'p'")
    except SpecError as error:
        assert error.issues and all(issue.path for issue in error.issues)
        return
    for plan in plan_releases("p", spec):
        facts = KEYS[plan.chart]
        missing = [p for p in leaf_paths(plan.values) if p not in facts["keys"]]
        assert missing == [], (plan.chart, missing)
    for row in advertised(spec, "p"):
        assert row.tolerated and row.selected, row
    daemons = planned_daemons("p", spec)
    for pool, labels in modeled_nodes(spec):
        if pool.accelerator is None:
            assert not any(d.admits(labels) for d in daemons if not d.everywhere), pool.name
