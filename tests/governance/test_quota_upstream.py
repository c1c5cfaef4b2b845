"""Kueue's own examples (tests/governance/upstream_kueue) written through PoolQuotas, with our
opinions turned off (issue 32): the rendered objects equal the upstream file's, object for
object. Where an example also has objects PoolQuotas doesn't make (AdmissionChecks and their
parameters, MultiKueue's clusters), those come from KueueQueues in the same program, as a
user would write them; PoolQuotas names the checks on its queues.

Reproduced exactly: single-clusterqueue-setup, worker-setup (topology-aware),
provisioning-setup and multikueue-setup (admission checks), manager-setup (topology and a
MultiKueue check), resource-flavor-empty and resource-flavor-tolerations (flavors only).
Not through PoolQuotas (KueueQueues reproduces them): shared-quota-setup (two resource
groups and the virtual `cpu_credits`), admission-fair-sharing-setup (`queueingStrategy`,
`admissionScope`, LocalQueue weights), resource-flavor-taints (`nodeTaints`),
minimal-cq (refused by Kueue's own webhook), sample-admission-check (no queue).
"""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.governance.kueue import render_quotas
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.kueue import KueueQueuesArgs
from nodepools.specs.governance.quotas import PoolQuotasArgs

from tests.governance.test_kueue_queues import _args as kueue_args
from tests.governance.test_kueue_queues import _documents

FLAT = {"cohorts": "none", "reclaim": None, "create_namespaces": False}


def _project(name: str, pool: str, quota: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "namespace": "default",
        "namespace_selector": {},
        "quotas": {pool: quota},
        **more,
    }


def _flat(pools: list[dict[str, Any]], covered: list[str], *projects: dict[str, Any], **more: Any):
    department = {"name": "platform", "projects": list(projects)}
    return {
        **FLAT,
        "pools": pools,
        "covered_resources": covered,
        "departments": [department],
        **more,
    }


TAS_FLAVOR = {"name": "tas-flavor", "node_labels": {"cloud.provider.com/node-group": "tas-node"}}
TAS = [{"name": "default", "levels": ["kubernetes.io/hostname"], "pools": ["tas-flavor"]}]
USER_QUEUE = [{"name": "user-queue"}]

# example -> (PoolQuotas args, the kinds KueueQueues writes from the same file)
EXAMPLES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "single-clusterqueue-setup.yaml": (
        _flat(
            [{"name": "default-flavor"}],
            ["cpu", "memory"],
            _project(
                "cluster-queue",
                "default-flavor",
                {"cpu": 9, "memory": "36Gi"},
                local_queues=USER_QUEUE,
            ),
        ),
        (),
    ),
    "worker-setup.yaml": (
        _flat(
            [TAS_FLAVOR],
            ["cpu", "memory"],
            _project(
                "worker-cluster-queue",
                "tas-flavor",
                {"cpu": 8, "memory": "16Gi"},
                local_queues=USER_QUEUE,
            ),
            topologies=TAS,
        ),
        (),
    ),
    "provisioning-setup.yaml": (
        _flat(
            [{"name": "default-flavor", "gpus": 9}],
            ["cpu", "memory", "nvidia.com/gpu"],
            _project(
                "cluster-queue",
                "default-flavor",
                {"cpu": 9, "memory": "36Gi", "gpu": 9},
                local_queues=USER_QUEUE,
                admission_checks=[{"name": "sample-prov", "on_pools": ["default-flavor"]}],
            ),
        ),
        ("AdmissionCheck", "ProvisioningRequestConfig"),
    ),
    "multikueue-setup.yaml": (
        _flat(
            [{"name": "default-flavor"}],
            ["cpu", "memory"],
            _project(
                "cluster-queue",
                "default-flavor",
                {"cpu": 9, "memory": "36Gi"},
                local_queues=USER_QUEUE,
                admission_checks=[{"name": "sample-multikueue"}],
            ),
        ),
        ("AdmissionCheck", "MultiKueueConfig", "MultiKueueCluster"),
    ),
    "manager-setup.yaml": (
        _flat(
            [TAS_FLAVOR],
            ["cpu", "memory"],
            _project(
                "cluster-queue",
                "tas-flavor",
                {"cpu": 16, "memory": "32Gi"},
                local_queues=USER_QUEUE,
                admission_checks=[{"name": "multikueue-ac"}],
            ),
            topologies=TAS,
        ),
        ("AdmissionCheck", "MultiKueueConfig", "MultiKueueCluster"),
    ),
    "resource-flavor-empty.yaml": (
        {**FLAT, "pools": [{"name": "default-flavor"}]},
        (),
    ),
    "resource-flavor-tolerations.yaml": (
        {
            **FLAT,
            "pools": [
                {
                    "name": "spot",
                    "node_labels": {"instance-type": "spot"},
                    "taints": ["spot-taint:NoSchedule"],
                }
            ],
        },
        (),
    ),
}


def _key(manifest: dict[str, Any]) -> tuple[str, str, str]:
    meta = manifest["metadata"]
    return manifest["kind"], meta.get("namespace", ""), meta["name"]


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_kueue_example_through_pool_quotas_renders_the_same_objects(example: str) -> None:
    documents = _documents(example)
    args, elsewhere = EXAMPLES[example]
    plan = render_quotas("site", parse_spec(PoolQuotasArgs, args, example))
    rendered = [r.manifest for r in plan.objects]
    others = [d for d in documents if d["kind"] in elsewhere]
    if others:
        queues = parse_spec(
            KueueQueuesArgs,
            kueue_args(others, existing_cluster_queues=[], existing_resource_flavors=[]),
            example,
        )
        rendered += [manifest for _, manifest in queues.manifests()]
    assert sorted(rendered, key=_key) == sorted(documents, key=_key)


def test_the_default_model_is_unchanged_by_the_new_settings() -> None:
    """Nothing set: a root and a department Cohort, a flavor per pool, the project's own
    namespace selected, one LocalQueue named after the project, every pool listed."""
    args = {
        "pools": [{"name": "default", "gpus": 8}],
        "departments": [
            {"name": "rnd", "projects": [{"name": "research", "quotas": {"default": {"gpu": 4}}}]}
        ],
    }
    plan = render_quotas("org", parse_spec(PoolQuotasArgs, args, "org"))
    kinds = sorted(_key(r.manifest) for r in plan.objects)
    assert kinds == [
        ("ClusterQueue", "", "research"),
        ("Cohort", "", "org"),
        ("Cohort", "", "rnd"),
        ("LocalQueue", "research", "research"),
        ("Namespace", "", "research"),
        ("ResourceFlavor", "", "default"),
    ]
    queue = next(r.manifest for r in plan.objects if r.kind == "ClusterQueue")
    assert queue["spec"]["cohortName"] == "rnd"
    assert queue["spec"]["namespaceSelector"] == {
        "matchLabels": {"kubernetes.io/metadata.name": "research"}
    }
    assert queue["spec"]["preemption"] == {"reclaimWithinCohort": "Any"}
    assert queue["spec"]["resourceGroups"][0]["coveredResources"] == ["nvidia.com/gpu"]


def _queue(args: dict[str, Any], name: str = "research") -> dict[str, Any]:
    plan = render_quotas("org", parse_spec(PoolQuotasArgs, args, "org"))
    return next(
        r.manifest
        for r in plan.objects
        if r.kind == "ClusterQueue" and r.manifest["metadata"]["name"] == name
    )


def _two_pools(**project: Any) -> dict[str, Any]:
    return {
        "pools": [
            {
                "name": "a100",
                "gpus": 8,
                "node_labels": {"pool": "a100"},
                "taints": ["g=1:NoSchedule"],
            },
            {
                "name": "h100",
                "gpus": 8,
                "node_labels": {"pool": "h100"},
                "taints": ["g=1:NoSchedule"],
            },
        ],
        "departments": [
            {
                "name": "rnd",
                "projects": [{"name": "research", "quotas": {"a100": {"gpu": 4}}, **project}],
            }
        ],
    }


def test_departments_cohorts_share_a_cohort_by_name_without_objects() -> None:
    args = {**_two_pools(), "cohorts": "departments"}
    plan = render_quotas("org", parse_spec(PoolQuotasArgs, args, "org"))
    assert not [r for r in plan.objects if r.kind == "Cohort"]
    assert _queue(args)["spec"]["cohortName"] == "rnd"


def test_pool_order_fungibility_and_concurrent_admission() -> None:
    spec = _queue(
        _two_pools(
            pool_order=["h100", "a100"],
            flavor_fungibility={
                "when_can_borrow": "TryNextFlavor",
                "preference": "PreemptionOverBorrowing",
            },
            concurrent_admission={"last_acceptable_pool": "a100"},
        )
    )["spec"]
    assert [f["name"] for f in spec["resourceGroups"][0]["flavors"]] == ["h100", "a100"]
    assert spec["flavorFungibility"] == {
        "whenCanBorrow": "TryNextFlavor",
        "preference": "PreemptionOverBorrowing",
    }
    assert spec["concurrentAdmissionPolicy"] == {
        "migration": {
            "mode": "TryPreferredFlavors",
            "constraints": {"lastAcceptableFlavorName": "a100"},
        }
    }
    only = _queue(_two_pools(pool_order=["a100"]))["spec"]
    assert [f["name"] for f in only["resourceGroups"][0]["flavors"]] == ["a100"]


def test_several_local_queues_of_any_name_and_namespace() -> None:
    args = _two_pools(
        local_queues=[{"name": "batch"}, {"name": "interactive", "namespace": "notebooks"}]
    )
    plan = render_quotas("org", parse_spec(PoolQuotasArgs, args, "org"))
    queues = sorted(_key(r.manifest) for r in plan.objects if r.kind == "LocalQueue")
    assert queues == [
        ("LocalQueue", "notebooks", "interactive"),
        ("LocalQueue", "research", "batch"),
    ]
    assert plan.queue_names == {"research": "batch"}
    first = _two_pools(local_queues=[{"name": "interactive", "namespace": "notebooks"}])
    table = render_quotas("org", parse_spec(PoolQuotasArgs, first, "org")).table
    assert {(row["namespace"], row["queue"]) for row in table} == {("notebooks", "interactive")}


def _problems(args: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        render_quotas("org", parse_spec(PoolQuotasArgs, args, "org"))
    return {issue.path: issue.message for issue in raised.value.issues}


def test_settings_that_contradict_each_other_are_refused_with_their_paths() -> None:
    found = _problems(
        {
            **_two_pools(
                over_quota=False,
                pool_order=["h100", "b200"],
                admission_checks=[{"name": "prov", "on_pools": ["a100"]}],
                concurrent_admission={
                    "mode": "RetainFirstAdmission",
                    "last_acceptable_pool": "a100",
                },
                local_queues=[{"name": "q"}, {"name": "q"}],
            ),
            "cohorts": "none",
            "organization": "acme",
            "covered_resources": ["cpu", "nvidia.com/gpu", "cpu_credits"],
            "topologies": [{"name": "t", "levels": ["kubernetes.io/hostname"], "pools": ["b200"]}],
        }
    )
    at = "departments[0].projects[0]"
    assert (
        "with cohorts 'none' a ClusterQueue has no cohort to borrow from"
        in found[f"{at}.over_quota"]
    )
    assert found["organization"].startswith("'acme' names the root Cohort")
    assert "'cpu_credits' is not a resource PoolQuotas governs" in found["covered_resources[2]"]
    assert found["topologies[0].pools[0]"].startswith("unknown pool 'b200'")
    assert found[f"{at}.pool_order[1]"].startswith("unknown pool 'b200'")
    assert "leaves out of the project's queue" in found[f"{at}.quotas.a100"]
    assert "not in the project's queue" in found[f"{at}.admission_checks[0].on_pools[0]"]
    assert (
        "only read with mode 'TryPreferredFlavors'"
        in found[f"{at}.concurrent_admission.last_acceptable_pool"]
    )
    assert "LocalQueue research/q is already made" in found[f"{at}.local_queues[1].name"]


def test_an_amount_of_a_resource_not_covered_is_refused() -> None:
    found = _problems({**_two_pools(), "covered_resources": ["cpu"]})
    assert found == {
        "departments[0].projects[0].quotas.a100.gpu": "gpu is set, but 'nvidia.com/gpu' is not "
        "in covered_resources ['cpu']: add it, or drop the amount"
    }


def test_two_pools_without_node_labels_are_refused() -> None:
    found = _problems({**FLAT, "pools": [{"name": "a"}, {"name": "b"}]})
    assert "pool 'a' already has none" in found["pools[1].node_labels"]
