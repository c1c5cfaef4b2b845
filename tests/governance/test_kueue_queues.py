"""KueueQueues: Kueue's own examples (kubernetes-sigs/kueue, site/static/examples, in
upstream_kueue/) written as args and emitted object for object, field by field; every
object validated by the vendored CRDs and Kueue's webhook rules; references checked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.kueue import KINDS, KueueQueuesArgs

UPSTREAM = Path(__file__).parent / "upstream_kueue"
FIELDS = {kind: field for field, kind in KINDS.items()}


def _documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((UPSTREAM / name).read_text()) if d]


def _args(documents: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """The KueueQueues args that say what the documents say."""
    args: dict[str, Any] = {}
    for doc in documents:
        item: dict[str, Any] = {"name": doc["metadata"]["name"]}
        if "namespace" in doc["metadata"]:
            item["namespace"] = doc["metadata"]["namespace"]
        if "spec" in doc:
            item["spec"] = doc["spec"]
        args.setdefault(FIELDS[doc["kind"]], []).append(item)
    return {**args, **extra}


def _order(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rank = list(KINDS.values())
    return sorted(documents, key=lambda d: rank.index(d["kind"]))  # stable: file order kept


EXAMPLES = {
    "single-clusterqueue-setup.yaml": {},
    "shared-quota-setup.yaml": {},  # two resource groups, virtual `cpu_credits`
    "resource-flavor-taints.yaml": {},
    "resource-flavor-tolerations.yaml": {},
    "resource-flavor-empty.yaml": {},
    "admission-fair-sharing-setup.yaml": {},  # StrictFIFO, admissionScope, 2 LQs + weights
    "worker-setup.yaml": {},  # Topology + topologyName
    # Every object of the file, the AdmissionCheck and its ProvisioningRequestConfig too.
    "provisioning-setup.yaml": {},
    # A MultiKueue manager: AdmissionCheck -> MultiKueueConfig -> MultiKueueClusters (their
    # kubeconfig Secrets live in Kueue's namespace and are made elsewhere).
    "multikueue-setup.yaml": {},
    "manager-setup.yaml": {},  # the same with two workers and a TAS flavor
    # A third-party controller's check: its parameters are not Kueue's to check.
    "sample-admission-check.yaml": {},
}


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_upstream_example_emitted_object_for_object(example):
    documents = _documents(example)
    args = parse_spec(KueueQueuesArgs, _args(documents, **EXAMPLES[example]), example)
    assert [manifest for _, manifest in args.manifests()] == _order(documents)


def test_kueues_own_minimal_cq_example_is_refused_as_kueues_webhook_refuses_it():
    # admin/minimal-cq.yaml names `onFlavors: [default-flavor]` on a ClusterQueue without
    # resource groups; Kueue's ClusterQueue webhook (validateAdmissionCheckOnFlavors) only
    # accepts flavors of the queue's own resource groups, so the example as written is
    # rejected by a current Kueue, and here first, with the webhook's message.
    documents = _documents("minimal-cq.yaml")
    found = _problems(_args(documents, existing_resource_flavors=["default-flavor"]))
    path = "cluster_queues[0].spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]"
    assert 'Unsupported value: "default-flavor"' in found[path]


def test_queues_without_cohort_any_selector_and_only_the_resources_they_use():
    [queue] = [
        d for d in _documents("single-clusterqueue-setup.yaml") if d["kind"] == "ClusterQueue"
    ]
    assert "cohortName" not in queue["spec"] and queue["spec"]["namespaceSelector"] == {}
    assert queue["spec"]["resourceGroups"][0]["coveredResources"] == ["cpu", "memory"]
    selector = {
        "matchLabels": {"team": "ml"},
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["prod"]}],
    }
    args = _args(
        _documents("single-clusterqueue-setup.yaml"),
    )
    args["cluster_queues"][0]["spec"] = {
        **args["cluster_queues"][0]["spec"],
        "namespaceSelector": selector,
        "cohortName": "ml",
        "fairSharing": {"weight": "2"},
    }
    args["cohorts"] = [{"name": "ml", "spec": {"fairSharing": {"weight": "1"}}}]
    parsed = parse_spec(KueueQueuesArgs, args, "k")
    kinds = [m["kind"] for _, m in parsed.manifests()]
    assert kinds == ["ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue"]


def _problems(args: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        parse_spec(KueueQueuesArgs, args, "KueueQueues 'k'")
    return {issue.path: issue.message for issue in raised.value.issues}


def test_crd_and_reference_problems_are_reported_at_their_paths():
    found = _problems(
        {
            "resource_flavors": [
                {"name": "spot", "spec": {"nodeTaints": [{"effect": "Sometimes", "key": "spot"}]}}
            ],
            "cluster_queues": [
                {
                    "name": "cq",
                    "spec": {
                        "namespaceSelector": {},
                        "queueingStrategy": "Random",
                        "resourceGroups": [
                            {
                                "coveredResources": ["cpu"],
                                "flavors": [
                                    {
                                        "name": "on-demand",
                                        "resources": [{"name": "cpu", "nominalQuota": 9}],
                                    }
                                ],
                            }
                        ],
                    },
                }
            ],
            "local_queues": [
                {"name": "q", "namespace": "default", "spec": {"clusterQueue": "other"}},
                {"name": "q", "namespace": "default", "spec": {"clusterQueue": "cq"}},
                {"name": "q", "namespace": "team-b", "spec": {"clusterQueue": "cq"}},
            ],
        }
    )
    assert "'NoSchedule'" in found["resource_flavors[0].spec.nodeTaints"]
    assert '"Random"' in found["cluster_queues[0].spec.queueingStrategy"]
    assert (
        "'on-demand' is not a ResourceFlavor here (['spot'])"
        in found["cluster_queues[0].spec.resourceGroups[0].flavors[0].name"]
    )
    assert (
        "'other' is not a ClusterQueue here (['cq'])" in found["local_queues[0].spec.clusterQueue"]
    )
    assert "already the name of local_queues[0]" in found["local_queues[1].name"]
    assert "local_queues[2].name" not in found  # the same name in another namespace is fine


def test_kueue_queues_registers_each_object_under_a_stable_name():
    from nodepools.governance.kueue_queues import KueueQueues
    from nodepools.offline import run

    args = _args(_documents("admission-fair-sharing-setup.yaml"))
    capture = run(lambda: KueueQueues("fs", args))
    names = sorted((r.type, r.name) for r in capture.custom_resources())
    assert names == [
        ("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "fs-clusterqueue-cluster-queue"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "fs-localqueue-default-lq-a"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "fs-localqueue-default-lq-b"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "fs-resourceflavor-default-flavor"),
    ]
    [component] = capture.components("nodepools:index:KueueQueues")
    assert capture.outputs_of(component)["queue_names"] == {
        "default/lq-a": "lq-a",
        "default/lq-b": "lq-b",
    }


def test_a_bad_object_registers_nothing():
    from nodepools.governance.kueue_queues import KueueQueues
    from nodepools.offline import ProgramError, run

    args = _args(_documents("single-clusterqueue-setup.yaml"))
    args["local_queues"][0]["spec"] = {"clusterQueue": "missing"}
    with pytest.raises(ProgramError) as raised:
        run(lambda: KueueQueues("k", args))
    assert raised.value.capture.resources == []


def test_kueue_queues_in_stack_config():
    from nodepools.fleet.deploy import validate_fleet

    args = _args(_documents("shared-quota-setup.yaml"))
    entries, _ = validate_fleet(
        {"governance": [{"component": "KueueQueues", "name": "team", **args}]}
    )
    assert isinstance(entries[0].args, KueueQueuesArgs)
    args["local_queues"][0]["spec"] = {"clusterQueue": "nope"}
    with pytest.raises(SpecError) as raised:
        validate_fleet({"governance": [{"component": "KueueQueues", "name": "team", **args}]})
    assert [i.path for i in raised.value.issues] == [
        "nodepools:governance[0].local_queues[0].spec.clusterQueue"
    ]


def test_object_names_are_used_as_they_are_so_they_must_be_kubernetes_names():
    found = _problems({"resource_flavors": [{"name": "Default_Flavor"}]})
    assert "'Default_Flavor' is not a Kubernetes object name" in found["resource_flavors[0].name"]


def _kinds(example: str) -> list[str]:
    return [d["kind"] for d in _documents(example)]


def test_the_admission_check_examples_are_reproduced_in_full():
    # Nothing of the files is left out: every kind they hold is one KueueQueues registers.
    assert _kinds("provisioning-setup.yaml") == [
        "ResourceFlavor",
        "ClusterQueue",
        "LocalQueue",
        "AdmissionCheck",
        "ProvisioningRequestConfig",
    ]
    assert sorted(set(_kinds("manager-setup.yaml"))) == [
        "AdmissionCheck",
        "ClusterQueue",
        "LocalQueue",
        "MultiKueueCluster",
        "MultiKueueConfig",
        "ResourceFlavor",
        "Topology",
    ]


def test_admission_check_references_are_checked():
    documents = _documents("multikueue-setup.yaml")
    args = _args(documents)
    args["multikueue_configs"][0]["spec"] = {"clusters": ["multikueue-test-worker1", "worker9"]}
    args["admission_checks"].append(
        {
            "name": "prov",
            "spec": {
                "controllerName": "kueue.x-k8s.io/provisioning-request",
                "parameters": {
                    "apiGroup": "kueue.x-k8s.io",
                    "kind": "MultiKueueConfig",
                    "name": "multikueue-test",
                },
            },
        }
    )
    args["admission_checks"].append(
        {
            "name": "prov2",
            "spec": {
                "controllerName": "kueue.x-k8s.io/provisioning-request",
                "parameters": {
                    "apiGroup": "kueue.x-k8s.io",
                    "kind": "ProvisioningRequestConfig",
                    "name": "missing",
                },
            },
        }
    )
    args["cluster_queues"][0]["spec"]["admissionChecksStrategy"]["admissionChecks"].append(
        {"name": "elsewhere"}
    )
    found = _problems(args)
    assert (
        "'worker9' is not a MultiKueueCluster here (['multikueue-test-worker1'])"
        in found["multikueue_configs[0].spec.clusters[1]"]
    )
    assert (
        "reads a kueue.x-k8s.io ProvisioningRequestConfig, not 'MultiKueueConfig'"
        in found["admission_checks[1].spec.parameters"]
    )
    assert (
        "'missing' is not a ProvisioningRequestConfig here"
        in (found["admission_checks[2].spec.parameters.name"])
    )
    assert (
        "'elsewhere' is not an AdmissionCheck here"
        in (found["cluster_queues[0].spec.admissionChecksStrategy.admissionChecks[1].name"])
    )
    # Objects that exist already are named as such.
    args["multikueue_configs"][0]["spec"] = {"clusters": ["multikueue-test-worker1"]}
    args["admission_checks"] = args["admission_checks"][:1]
    parse_spec(
        KueueQueuesArgs,
        {**args, "existing_admission_checks": ["elsewhere"]},
        "k",
    )


def test_admission_check_kinds_are_validated_by_their_crds():
    found = _problems(
        {
            "multikueue_clusters": [
                {"name": "w1", "spec": {"clusterSource": {}}},
                {
                    "name": "w2",
                    "spec": {
                        "clusterSource": {
                            "kubeConfig": {"locationType": "Vault", "location": "w2-secret"}
                        }
                    },
                },
            ],
            "multikueue_configs": [{"name": "mk", "spec": {"clusters": []}}],
            "provisioning_request_configs": [
                {"name": "prc", "spec": {"provisioningClassName": "x", "managedResources": 3}}
            ],
            "admission_checks": [{"name": "ac", "spec": {}}],
        }
    )
    assert (
        "exactly one of the fields in [kubeConfig clusterProfileRef]"
        in (found["multikueue_clusters[0].spec.clusterSource"])
    )
    assert '"Vault"' in found["multikueue_clusters[1].spec.clusterSource.kubeConfig.locationType"]
    assert "multikueue_configs[0].spec.clusters" in found
    assert "provisioning_request_configs[0].spec.managedResources" in found
    assert "admission_checks[0].spec.controllerName" in found


def test_children_of_the_admission_check_setups_are_snapshotted():
    """Child (type, name) pairs are public API: a rename needs an alias."""
    from nodepools import KueueQueues
    from nodepools.offline import run

    from tests.golden import assert_golden

    snapshot: dict[str, list[list[str]]] = {}
    for example in ("provisioning-setup.yaml", "manager-setup.yaml"):
        name = example.removesuffix(".yaml")
        capture = run(lambda e=example, n=name: KueueQueues(n, _args(_documents(e))))
        [component] = capture.components()
        snapshot[example] = [[r.type, r.name] for r in capture.children(component.urn)]
    assert_golden("governance/kueue_queues_children.json", snapshot)
