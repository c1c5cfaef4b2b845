"""PoolQuotas: Run:ai departments, projects and per-pool quotas as Kueue v1beta2 objects."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from nodepools import PoolQuotas, SpecError
from nodepools.governance import kueue
from nodepools.governance.manifests import Rendered
from nodepools.offline import ProgramError, run
from nodepools.specs.core.labels import POOL_LABEL
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.quotas import PoolQuotasArgs
from nodepools.validation import validate_manifest

from tests.golden import assert_golden
from tests.governance.stacks import by_name, gpu_spot_pool, karpenter_gpu_pool, org_args

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2"
GPU = "nvidia.com/gpu"


def capture_of(args: Any, name: str = "org"):
    return run(lambda: PoolQuotas(name, args))


def problems(args: Any, name: str = "org") -> list[tuple[str, str]]:
    """(path, message) of every issue, checking that nothing was registered."""
    with pytest.raises(ProgramError) as info:
        capture_of(args, name)
    assert info.value.capture.resources == []
    error = info.value.cause
    assert isinstance(error, SpecError), error
    return [(issue.path, issue.message) for issue in error.issues]


def queue_spec(capture, project: str) -> dict[str, Any]:
    return capture.get(f"{KUEUE}:ClusterQueue", f"org-clusterqueue-{project}").inputs["spec"]


def flavor_quota(spec: dict[str, Any], flavor: str) -> dict[str, dict[str, Any]]:
    [group] = spec["resourceGroups"]
    [entry] = [f for f in group["flavors"] if f["name"] == flavor]
    return {r["name"]: r for r in entry["resources"]}


# --- the organisation of the Run:ai example ---------------------------------------------


def test_org_objects_match_golden():
    capture = capture_of(org_args())
    assert_golden("governance/org_quotas.json", by_name(capture.resources))


def test_every_registered_kueue_object_passes_the_validator():
    capture = capture_of(org_args())
    kueue_objects = [r for r in capture.resources if r.type.startswith(KUEUE)]
    assert len(kueue_objects) == 3 + 3 + 8 + 8  # flavors, cohorts, cluster and local queues
    for resource in kueue_objects:
        assert validate_manifest(resource.inputs) == [], resource.name


def test_children_are_parented_and_named_by_role():
    capture = capture_of(org_args())
    [component] = capture.components("nodepools:index:PoolQuotas")
    children = {(r.type.rsplit(":", 1)[-1], r.name) for r in capture.children(component.urn)}
    assert ("ResourceFlavor", "org-flavor-a100-40gb") in children
    assert ("Cohort", "org-cohort") in children
    assert ("Cohort", "org-cohort-ml-ops") in children
    assert ("ClusterQueue", "org-clusterqueue-inference-chat") in children
    assert ("LocalQueue", "org-localqueue-inference-chat") in children
    assert ("Namespace", "org-namespace-inference-chat") in children
    assert len(children) == len(capture.resources) - 1


def test_outputs_queue_names_and_summary():
    capture = capture_of(org_args())
    [component] = capture.components("nodepools:index:PoolQuotas")
    outputs = capture.outputs_of(component)
    assert outputs["queue_names"]["training-nlp"] == "training-nlp"
    assert len(outputs["queue_names"]) == 8
    assert outputs["summary"]["default"] == {
        "capacity": {"gpu": 80, "cpu": 640, "memory": "4880Gi"},
        "nominal": {"gpu": 40, "cpu": 320, "memory": "2440Gi"},
    }
    assert outputs["summary"]["a100-40gb"]["nominal"]["gpu"] == 20


def test_departments_own_20_v100_gpus_and_their_a100_pool():
    plan = kueue.render_quotas("org", parse_spec(PoolQuotasArgs, org_args(), "org"))
    assert plan.departments == {
        "rnd": {
            "a100-80gb": {"gpu": 20, "cpu": 320, "memory": "2560Gi"},
            "default": {"gpu": 20, "cpu": 160, "memory": "1220Gi"},
        },
        "ml-ops": {
            "a100-40gb": {"gpu": 20, "cpu": 320, "memory": "2560Gi"},
            "default": {"gpu": 20, "cpu": 160, "memory": "1220Gi"},
        },
    }


def test_every_project_lists_every_pool_owned_first_and_may_borrow():
    capture = capture_of(org_args())
    spec = queue_spec(capture, "inference-chat")
    assert spec["cohortName"] == "ml-ops"
    assert spec["namespaceSelector"] == {
        "matchLabels": {"kubernetes.io/metadata.name": "inference-chat"}
    }
    assert spec["preemption"] == {"reclaimWithinCohort": "Any"}
    [group] = spec["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "nvidia.com/gpu"]
    assert [f["name"] for f in group["flavors"]] == ["a100-40gb", "default", "a100-80gb"]
    idle = flavor_quota(spec, "a100-80gb")
    assert idle["nvidia.com/gpu"] == {"name": "nvidia.com/gpu", "nominalQuota": 0}


def test_flavors_select_pools_and_tolerate_their_taints():
    capture = capture_of(org_args())
    flavor = capture.get(f"{KUEUE}:ResourceFlavor", "org-flavor-a100-40gb").inputs["spec"]
    assert flavor == {
        "nodeLabels": {POOL_LABEL: "a100-40gb"},
        "tolerations": [
            {"key": POOL_LABEL, "operator": "Equal", "value": "a100-40gb", "effect": "NoSchedule"}
        ],
    }
    # Nodes in no other pool: nothing to select, so nothing pinned.
    assert "spec" not in capture.get(f"{KUEUE}:ResourceFlavor", "org-flavor-default").inputs


def test_departments_hang_under_the_organisation_cohort():
    capture = capture_of(org_args())
    assert capture.get(f"{KUEUE}:Cohort", "org-cohort-rnd").inputs["spec"] == {"parentName": "org"}


def _root_quota(args: dict) -> dict[str, dict[str, object]]:
    """{flavor: {resource: nominalQuota}} of the root Cohort's own quota ({} when none)."""
    spec = capture_of(args).get(f"{KUEUE}:Cohort", "org-cohort").inputs["spec"]
    if not spec:
        return {}
    [group] = spec["resourceGroups"]
    return {
        flavor["name"]: {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
        for flavor in group["flavors"]
    }


def test_capacity_no_project_is_guaranteed_is_the_roots_own_quota():
    # Kueue lends only quotas: the 40 V100 GPUs (and their CPU and memory) no project is
    # guaranteed are admitted only as the root Cohort's quota, which every project may borrow.
    assert _root_quota(org_args()) == {
        "a100-40gb": {"cpu": 0, "memory": 0, GPU: 0},
        "a100-80gb": {"cpu": 0, "memory": 0, GPU: 0},
        "default": {"cpu": 320, "memory": "2440Gi", GPU: 40},
    }


def test_nothing_left_over_or_capacity_unknown_means_no_quota_on_the_root():
    args = {
        "pools": [{"name": "default", "gpus": 8}],
        "departments": [
            {"name": "rnd", "projects": [{"name": "research", "quotas": {"default": {"gpu": 8}}}]}
        ],
    }
    assert _root_quota(args) == {}
    # cpu is covered but the pool's CPU is not described: nothing of it is lent.
    args["departments"][0]["projects"][0]["quotas"]["default"] = {"gpu": 6, "cpu": 4}
    assert _root_quota(args) == {"default": {"cpu": 0, GPU: 2}}


def test_local_queue_and_namespace_per_project():
    capture = capture_of(org_args())
    local = capture.get(f"{KUEUE}:LocalQueue", "org-localqueue-build").inputs
    assert local["metadata"] == {"name": "build", "namespace": "build"}
    assert local["spec"] == {"clusterQueue": "build"}
    namespace = capture.get("kubernetes:core/v1:Namespace", "org-namespace-build")
    assert namespace.inputs["metadata"]["labels"] == {
        "nodepools.dev/department": "rnd",
        "nodepools.dev/project": "build",
    }
    # The API server refuses a LocalQueue before its namespace exists.
    assert namespace.urn in capture.get(f"{KUEUE}:LocalQueue", "org-localqueue-build").dependencies


def test_existing_namespaces_are_not_created():
    args = org_args()
    args["create_namespaces"] = False
    args["departments"][0]["projects"][0]["namespace"] = "team-build"
    capture = capture_of(args)
    assert capture.by_type("kubernetes:core/v1:Namespace") == []
    assert queue_spec(capture, "build")["namespaceSelector"]["matchLabels"] == {
        "kubernetes.io/metadata.name": "team-build"
    }


# --- over-quota, limits, reclaim ----------------------------------------------------------


def small(**project: Any) -> dict[str, Any]:
    return {
        "pools": [
            {"name": "default", "gpus": 8, "cpu": 64},
            {
                "name": "a100",
                "node_labels": {POOL_LABEL: "a100"},
                "taints": ["nvidia.com/gpu=true:NoSchedule"],
                "gpus": 8,
            },
        ],
        "departments": [
            {
                "name": "research",
                "projects": [{"name": "vision", "quotas": {"a100": {"gpu": 4}}, **project}],
            }
        ],
    }


def test_over_quota_false_means_no_borrowing():
    spec = queue_spec(capture_of(small(over_quota=False)), "vision")
    for flavor in ("a100", "default"):
        quotas = flavor_quota(spec, flavor)
        assert quotas["nvidia.com/gpu"]["borrowingLimit"] == 0


def test_over_quota_cap_limits_the_named_resources_only():
    args = small(over_quota={"gpu": 2})
    args["departments"][0]["projects"][0]["quotas"]["default"] = {"cpu": 8}
    spec = queue_spec(capture_of(args), "vision")
    quotas = flavor_quota(spec, "default")
    assert quotas["nvidia.com/gpu"]["borrowingLimit"] == 2
    assert "borrowingLimit" not in quotas["cpu"]


def test_over_quota_true_borrows_without_limit():
    spec = queue_spec(capture_of(small(over_quota=True)), "vision")
    assert all("borrowingLimit" not in r for r in flavor_quota(spec, "a100").values())


def test_department_limit_is_the_cohort_borrowing_limit_on_every_pool():
    args = small()
    args["departments"][0]["limit"] = {"gpu": 6}
    capture = capture_of(args)
    cohort = capture.get(f"{KUEUE}:Cohort", "org-cohort-research").inputs["spec"]
    assert cohort["parentName"] == "org"
    [group] = cohort["resourceGroups"]
    for flavor in group["flavors"]:
        assert {"name": "nvidia.com/gpu", "nominalQuota": 0, "borrowingLimit": 6} in flavor[
            "resources"
        ]


def test_reclaim_policy_is_configurable():
    args = small()
    args["reclaim"] = "LowerPriority"
    spec = queue_spec(capture_of(args), "vision")
    assert spec["preemption"] == {"reclaimWithinCohort": "LowerPriority"}


def test_pool_components_are_read_from_their_resolved_spec():
    def program():
        pool = gpu_spot_pool()
        PoolQuotas(
            "org",
            {
                "pools": [pool],
                "departments": [
                    {"name": "d", "projects": [{"name": "p", "quotas": {"gpu-spot": {"gpu": 8}}}]}
                ],
            },
        )

    capture = run(program)
    flavor = capture.get(f"{KUEUE}:ResourceFlavor", "org-flavor-gpu-spot").inputs["spec"]
    assert flavor["nodeLabels"] == {POOL_LABEL: "gpu-spot"}
    assert {t["key"] for t in flavor["tolerations"]} == {"nvidia.com/gpu", "spot"}
    [component] = capture.components("nodepools:index:PoolQuotas")
    # g5.12xlarge has 4 GPUs, at most 2 nodes.
    assert capture.outputs_of(component)["summary"]["gpu-spot"]["capacity"] == {"gpu": 8}


def karpenter_quotas(pool: Any, gpu: int = 8) -> dict[str, Any]:
    quota = {"gpu": gpu, "cpu": 96, "memory": "384Gi"}
    return {
        "pools": [pool],
        "departments": [
            {"name": "d", "projects": [{"name": "p", "quotas": {"gpu-karpenter": quota}}]}
        ],
    }


def test_karpenter_pools_are_read_from_their_resolved_spec_and_limits():
    capture = run(lambda: PoolQuotas("org", karpenter_quotas(karpenter_gpu_pool())))
    flavor = capture.get(f"{KUEUE}:ResourceFlavor", "org-flavor-gpu-karpenter").inputs["spec"]
    # The identity label is a template label of the NodePool: every node it launches has it.
    node_pool = capture.get("kubernetes:karpenter.sh/v1:NodePool", "gpu-karpenter-node-pool")
    labels = node_pool.inputs["spec"]["template"]["metadata"]["labels"]
    assert flavor["nodeLabels"] == {POOL_LABEL: labels[POOL_LABEL]} == {POOL_LABEL: "gpu-karpenter"}
    assert {t["key"] for t in flavor["tolerations"]} == {"nvidia.com/gpu", "spot"}
    [component] = capture.components("nodepools:index:PoolQuotas")
    # Capacity is what the NodePool's limits let Karpenter launch.
    assert capture.outputs_of(component)["summary"]["gpu-karpenter"]["capacity"] == {
        "gpu": 16,
        "cpu": 192,
        "memory": "768Gi",
    }
    for resource in capture.resources:
        if resource.type.startswith(KUEUE):
            assert validate_manifest(resource.inputs) == [], resource.name


def test_a_resolved_karpenter_pool_is_a_pool_too():
    from nodepools.specs.karpenter.args import KarpenterNodePoolArgs
    from nodepools.specs.karpenter.resolve import resolve_karpenter_pool

    from tests.governance.stacks import KARPENTER_GPU

    args = KarpenterNodePoolArgs.model_validate({**KARPENTER_GPU, "limits": {"nvidia.com/gpu": 8}})
    resolved = resolve_karpenter_pool(args, "gpu-karpenter")
    spec = parse_spec(PoolQuotasArgs, karpenter_quotas(resolved), "PoolQuotas 'org'")
    [pool] = spec.pools
    assert (pool.name, pool.gpus, pool.gpus_per_node, pool.cpu, pool.memory) == (
        "gpu-karpenter",
        8,
        4,
        None,
        None,
    )


def test_quotas_above_a_karpenter_pools_limits_are_refused():
    with pytest.raises(ProgramError) as info:
        run(lambda: PoolQuotas("org", karpenter_quotas(karpenter_gpu_pool(), gpu=20)))
    assert not [r for r in info.value.capture.resources if r.type.startswith(KUEUE)]
    error = info.value.cause
    assert isinstance(error, SpecError), error
    assert [(issue.path, issue.message) for issue in error.issues] == [
        (
            'departments[0].projects[0].quotas["gpu-karpenter"].gpu',
            "quotas on pool 'gpu-karpenter' add up to 20 nvidia.com/gpu with this project's "
            "20, but the pool holds 16 (`pools[0].gpus`)",
        )
    ]


# --- errors, with paths, before anything is registered -------------------------------------


def test_quotas_above_pool_capacity_are_refused():
    args = org_args()
    args["departments"][1]["projects"][3]["quotas"]["a100-40gb"]["gpu"] = 6
    assert problems(args) == [
        (
            'departments[1].projects[3].quotas["a100-40gb"].gpu',
            "quotas on pool 'a100-40gb' add up to 21 nvidia.com/gpu with this project's 6, "
            "but the pool holds 20 (`pools[1].gpus`)",
        )
    ]


def test_memory_above_capacity_is_compared_exactly():
    args = small()
    args["pools"][0]["memory"] = "1Ti"
    args["departments"][0]["projects"][0]["quotas"]["default"] = {"memory": "1025Gi"}
    [(path, message)] = problems(args)
    assert path == "departments[0].projects[0].quotas.default.memory"
    assert "1025Gi memory" in message and "holds 1Ti (`pools[0].memory`)" in message


def test_quota_on_an_unknown_pool_is_refused():
    args = small()
    args["departments"][0]["projects"][0]["quotas"]["h100"] = {"gpu": 1}
    assert problems(args) == [
        (
            "departments[0].projects[0].quotas.h100",
            "unknown pool 'h100' (pools: 'default', 'a100')",
        )
    ]


def test_untainted_pool_beside_an_unlabelled_default_is_refused():
    args = small()
    args["pools"][1]["taints"] = ["spot=true:PreferNoSchedule"]
    [(path, message)] = problems(args)
    assert path == "pools[1].taints"
    assert "no NoSchedule or NoExecute taint" in message


def test_unlabelled_default_is_fine_once_default_has_labels():
    args = small()
    args["pools"][1]["taints"] = []
    args["pools"][0]["node_labels"] = {POOL_LABEL: "default"}
    capture = capture_of(args)
    flavor = capture.get(f"{KUEUE}:ResourceFlavor", "org-flavor-default").inputs["spec"]
    assert flavor == {"nodeLabels": {POOL_LABEL: "default"}}


def test_pool_without_labels_other_than_default_is_refused():
    args = small()
    del args["pools"][1]["node_labels"]
    assert problems(args)[0][0] == "pools[1].node_labels"


def test_names_that_collide_as_kubernetes_names_are_refused():
    args = small()
    args["departments"][0]["projects"].append({"name": "Vision", "namespace": "vision2"})
    args["departments"].append(
        {"name": "other", "projects": [{"name": "x", "namespace": "vision"}]}
    )
    assert problems(args) == [
        (
            "departments[0].projects[1].name",
            "ClusterQueue 'vision' is already used by `departments[0].projects[0].name`",
        ),
        (
            "departments[1].projects[0].namespace",
            "namespace 'vision' is already used by `departments[0].projects[0].namespace`",
        ),
    ]


def test_names_that_cant_be_kubernetes_names_are_refused():
    args = small()
    args["departments"][0]["name"] = "R&D"
    [(path, message)] = problems(args)
    assert path == "departments[0].name"
    assert "'R&D' can't name Kubernetes objects: it maps to 'r&d'" in message


def test_bad_quantities_are_refused_with_their_path():
    args = small()
    args["departments"][0]["projects"][0]["quotas"]["a100"] = {"gpu": 1, "memory": "lots"}
    args["departments"][0]["projects"][0]["over_quota"] = {"cpu": "-1"}
    assert problems(args) == [
        (
            "departments[0].projects[0].quotas.a100.memory",
            "'lots' is not a Kubernetes quantity (e.g. 8, '500m', '64Gi')",
        ),
        (
            "departments[0].projects[0].over_quota.cpu",
            "'-1' is negative; quantities are at least 0",
        ),
    ]


def test_more_pools_than_a_resource_group_holds_is_refused():
    args = small()
    args["pools"] += [
        {"name": f"p{i}", "node_labels": {POOL_LABEL: f"p{i}"}, "taints": ["x=y:NoSchedule"]}
        for i in range(63)
    ]
    assert (
        "pools",
        "65 pools; a Kueue ClusterQueue resource group holds at most 64 flavors (one per pool)",
    ) in problems(args)


def test_department_named_like_the_organisation_is_refused():
    args = small()
    args["departments"][0]["name"] = "org"
    assert problems(args) == [
        (
            "departments[0].name",
            "'org' names the same Cohort as the organisation ('org'); rename it or set "
            "`organization`",
        )
    ]
    args["organization"] = "company"
    assert capture_of(args).get(f"{KUEUE}:Cohort", "org-cohort").inputs["metadata"] == {
        "name": "company"
    }


def test_objects_the_kueue_webhook_would_refuse_are_refused_before_registering(monkeypatch):
    # Our renderer never emits them; the gate must still hold if it ever did.
    real = kueue.render_quotas

    def lending_above_nominal(name, args):
        plan = real(name, args)
        queue = next(o for o in plan.objects if o.kind == "ClusterQueue")
        broken = copy.deepcopy(queue.manifest)
        broken["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["lendingLimit"] = 99
        objects = [Rendered(o.role, broken, o.origin) if o is queue else o for o in plan.objects]
        return kueue.QuotaPlan(objects, plan.queue_names, plan.summary)

    monkeypatch.setattr("nodepools.governance.pool_quotas.render_quotas", lending_above_nominal)
    [(path, message)] = problems(small())
    assert path == "departments[0].projects[0]"
    assert message.startswith("ClusterQueue 'vision' would be rejected: ")
    assert "lendingLimit" in message


def test_a_string_pool_outside_stack_config_is_refused():
    args = small()
    args["pools"][1] = "a100"
    [(path, message)] = problems(args)
    assert path == "pools[1]"
    assert "is a name; give a pool component or a description" in message


# --- determinism ------------------------------------------------------------------------


def shuffled(args: dict[str, Any]) -> dict[str, Any]:
    args = copy.deepcopy(args)
    args["pools"].reverse()
    for pool in args["pools"]:
        pool["taints"] = list(reversed(pool.get("taints", [])))
        pool["node_labels"] = dict(reversed(list(pool.get("node_labels", {}).items())))
    for department in args["departments"]:
        department["projects"].reverse()
        for project in department["projects"]:
            project["quotas"] = dict(reversed(list(project["quotas"].items())))
    args["departments"].reverse()
    return args


def test_same_input_in_any_order_registers_identical_inputs():
    first = by_name(capture_of(org_args()).resources)
    again = by_name(capture_of(org_args()).resources)
    reordered = by_name(capture_of(shuffled(org_args())).resources)
    assert first == again == reordered
