"""Property: any governance spec either fails with paths or renders objects that validate."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nodepools.governance.admission_cel import compile_check
from nodepools.governance.kueue import render_quotas
from nodepools.governance.manifests import validate_rendered
from nodepools.governance.platform_objects import render_platforms
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.platforms import PoolPlatformsArgs
from nodepools.specs.governance.quotas import PoolQuotasArgs

# Mostly valid values, so that both outcomes are common; the odd bad one on purpose.
POOL_NAMES = ["default", "a100", "h100_80", "default", "a100", "h100_80", "Bad Name", "A100"]
AMOUNTS = [0, 1, 4, 16, 100, "500m", "64Gi", "1.5", 0, 1, 2, "1Gi", 2, 1, 0, "2Gi", "-1", "lots"]

amounts = st.fixed_dictionaries(
    {},
    optional={
        "gpu": st.sampled_from([0, 1, 2, 4, 1, 2, 40, -1]),
        "cpu": st.sampled_from(AMOUNTS),
        "memory": st.sampled_from(AMOUNTS),
    },
)
pools = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(POOL_NAMES)},
        optional={
            "node_labels": st.sampled_from(
                [{}, {"nodepools.dev/pool": "x"}, {"nodepools.dev/pool": "y"}] * 3
                + [{"bad key!": "v"}]
            ),
            "taints": st.sampled_from(
                [[], ["k=v:NoSchedule"], ["k=v:NoSchedule"], ["k:PreferNoSchedule"]]
            ),
            "gpus": st.sampled_from([0, 8, 80, 80]),
            "cpu": st.sampled_from([None, 1000, 1000, "lots"]),
            "memory": st.sampled_from([None, "10Ti", "10Ti", "-1"]),
            "gpu_resource": st.sampled_from(["nvidia.com/gpu", "amd.com/gpu"]),
        },
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda pool: pool["name"],
)
projects = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.sampled_from(
                ["vision", "nlp", "a_b", "vision", "nlp", "a_b", "Vision", "x y"]
            )
        },
        optional={
            "namespace": st.sampled_from(["ns-a", "ns-b", "ns-c", "ns-d", "NS"]),
            "quotas": st.dictionaries(st.sampled_from(POOL_NAMES), amounts, max_size=2),
            "over_quota": st.one_of(st.booleans(), amounts),
        },
    ),
    max_size=3,
    unique_by=lambda project: project["name"],
)
departments = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.sampled_from(["rnd", "ml-ops", "rnd", "ml-ops", "org", "R&D"]),
            "projects": projects,
        },
        optional={"limit": amounts},
    ),
    min_size=1,
    max_size=2,
    unique_by=lambda department: department["name"],
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pools=pools, departments=departments, reclaim=st.sampled_from(["Any", "Never", "Often"]))
def test_quotas_fail_with_paths_or_render_valid_kueue(pools, departments, reclaim):
    raw: dict[str, Any] = {"pools": pools, "departments": departments, "reclaim": reclaim}
    try:
        spec = parse_spec(PoolQuotasArgs, raw, "PoolQuotas 'org'")
        plan = render_quotas("org", spec)
    except SpecError as error:
        assert error.issues and all(issue.message for issue in error.issues)
        return
    validate_rendered("PoolQuotas 'org'", plan.objects)  # raises if any object is invalid


variables = st.fixed_dictionaries(
    {},
    optional={
        "USER_CPU": st.sampled_from(AMOUNTS),
        "USER_GPU": st.sampled_from([0, 2, -1]),
        "USER_MEMORY": st.sampled_from(AMOUNTS),
    },
)
validations = st.lists(
    st.one_of(
        st.sampled_from(["default_cpu", "default_gpu", "default_memory", "nope"]),
        st.fixed_dictionaries(
            {
                "operator": st.sampled_from(["LE", "GT", "EQ"]),
                "left_operand": st.sampled_from(["{{USER_CPU}}", "{{USER_GPU}}"]),
                "right_operand": st.sampled_from(["{{K8_CPU}}", "{{K8_GPU}}", 4, "2Gi", "x"]),
            }
        ),
        st.fixed_dictionaries(
            {"expression": st.sampled_from(["true", "object.spec.x == 1", "1 +", "'s'"])}
        ),
    ),
    max_size=3,
)
platforms = st.dictionaries(
    st.sampled_from(["l40s", "a100_platform", "A100-Platform"]),
    st.fixed_dictionaries(
        {},
        optional={
            "node_selector": st.sampled_from([{}, {"gpu": "l40s"}, {"gpu": "a100"}]),
            "default_variables": variables,
            "resource_validations": validations,
            "node_resources": st.sampled_from([{}, {"cpu": 8, "gpu": 4}]),
            "privileged_allowed": st.booleans(),
            "pod_template": st.sampled_from(
                [{}, {"containers": [{"name": "user", "securityContext": {"privileged": True}}]}]
            ),
        },
    ),
    min_size=0,
    max_size=3,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    platforms=platforms,
    default=st.sampled_from([None, "l40s", "h100"]),
    common_validations=validations,
    common_variables=variables,
)
def test_platforms_fail_with_paths_or_render_compiling_policies(
    platforms, default, common_validations, common_variables
):
    raw = {
        "pool": "shared_pool",
        "platforms": platforms,
        "default_platform": default,
        "common_pod_template": {"containers": [{"name": "user", "image": "x"}]},
        "common_resource_validations": common_validations,
        "common_default_variables": common_variables,
    }
    try:
        plan = render_platforms("p", parse_spec(PoolPlatformsArgs, raw, "PoolPlatforms 'p'"))
    except SpecError as error:
        assert error.issues and all(issue.message for issue in error.issues)
        return
    for item in plan.objects:
        if item.kind == "ValidatingAdmissionPolicy":
            for validation in item.manifest["spec"]["validations"]:
                compile_check(validation["expression"])


def test_governance_keeps_import_components_light():
    import subprocess
    import sys

    code = (
        "import sys, nodepools, nodepools.fleet.deploy, nodepools.planning\n"
        "heavy = [m for m in ('pulumi_kubernetes', 'cel_expr_python') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    root = __file__.rsplit("/tests/", 1)[0]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
