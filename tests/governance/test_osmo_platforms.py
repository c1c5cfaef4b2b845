"""PoolPlatforms in OSMO's own form: seed 002's documents accepted and emitted unchanged,
references checked with paths, the Kubernetes target fed from the same documents."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from nodepools import PoolPlatforms, SpecError
from nodepools.offline import ProgramError, run
from nodepools.planning import plan_stack
from nodepools.specs.governance.osmo_models import (
    OsmoPlatform,
    OsmoPool,
    OsmoResourceRule,
    osmo_facts,
)
from nodepools.specs.governance.osmo_roles import OsmoRole

from tests.governance.osmo_seed import SENT_DOCUMENTS, seed_kwargs
from tests.governance.stacks import STACKS, seed_osmo_args

OSMO_CONFIG = "pulumi-python:dynamic/osmo:Config"


def capture_of(**kwargs: Any):
    return run(lambda: PoolPlatforms.from_osmo("shared-pool", **kwargs))


def documents_of(capture) -> dict[tuple[str, str], Any]:
    return {
        (r.inputs["config_type"], r.inputs["config_name"]): r.inputs["document"]
        for r in capture.by_type(OSMO_CONFIG)
    }


def problems(**kwargs: Any) -> list[tuple[str, str]]:
    with pytest.raises(ProgramError) as info:
        capture_of(**kwargs)
    assert info.value.capture.resources == []
    error = info.value.cause
    assert isinstance(error, SpecError), repr(error)
    return [(issue.path, issue.message) for issue in error.issues]


def test_the_seed_documents_are_accepted_and_emitted_unchanged():
    """Unchanged but for the role, whose legacy `actions` are sent as OSMO's `policies`."""
    capture = capture_of(**seed_kwargs())
    assert documents_of(capture) == SENT_DOCUMENTS
    component = capture.components(PoolPlatforms.TYPE)[0]
    outputs = capture.outputs_of(component)
    assert [(d["type"], d["name"]) for d in outputs["osmo_documents"]] == [
        ("POD_TEMPLATE", "a100"),
        ("POD_TEMPLATE", "l40s"),
        ("POOL", "shared_simulation_training_pool"),
        ("ROLE", "osmo-shared"),
    ]
    assert outputs["platforms"] == {} and outputs["namespaces"] == []
    assert outputs["default_platform"] == "l40s_platform"
    # Nothing for Kubernetes: target osmo.
    assert [r.type for r in capture.custom_resources()] == [OSMO_CONFIG] * 4


def test_the_pool_is_applied_after_the_templates_it_references():
    capture = capture_of(**seed_kwargs())
    by_name = {r.name: r for r in capture.by_type(OSMO_CONFIG)}
    pool = by_name["shared-pool-osmo-pool-shared_simulation_training_pool"]
    templates = {by_name[f"shared-pool-osmo-pod_template-{n}"].urn for n in ("a100", "l40s")}
    assert templates <= set(pool.dependencies)
    assert not set(by_name["shared-pool-osmo-role-osmo-shared"].dependencies) & templates


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


def test_documents_are_byte_stable_in_any_key_order(tmp_path: Path):
    first = plan_stack("osmo-platforms", stacks_dir=STACKS, out_dir=tmp_path / "a")
    assert first.ok, first.render()
    files = sorted(p.relative_to(tmp_path / "a").as_posix() for p in first.artifacts)
    assert files == [
        "capacity.svg",
        "osmo/POD_TEMPLATE/a100.json",
        "osmo/POD_TEMPLATE/l40s.json",
        "osmo/POOL/shared_simulation_training_pool.json",
        "osmo/ROLE/osmo-shared.json",
        "plan.json",
        "resources/kubernetes_helm.sh_v3_Release/gpu-operator-nvidia.yaml",  # its AcceleratorStack
    ]
    for (config_type, name), document in SENT_DOCUMENTS.items():
        text = (tmp_path / "a" / "osmo" / config_type / f"{name}.json").read_text()
        assert json.loads(text) == document
        assert text == json.dumps(document, indent=2, sort_keys=True) + "\n"
    shuffled = _shuffled(seed_kwargs(), random.Random(7))
    assert documents_of(capture_of(**shuffled)) == SENT_DOCUMENTS


def test_the_stack_holds_the_seed_documents():
    args = seed_osmo_args()
    assert args.pop("target") == "osmo"
    assert args == seed_kwargs()


def test_unknown_references_are_errors_with_paths():
    kwargs = seed_kwargs()
    kwargs["pool"]["common_pod_template"].append("default_usr")
    kwargs["pool"]["platforms"]["a100_platform"]["override_pod_template"] = ["a10"]
    kwargs["pool"]["platforms"]["l40s_platform"]["resource_validations"] = ["default_gpu"]
    kwargs["pool"]["default_platform"] = "h100_platform"
    found = dict(problems(**kwargs))
    assert set(found) == {
        "pool.common_pod_template[2]",
        "pool.platforms.a100_platform.override_pod_template[0]",
        "pool.platforms.l40s_platform.resource_validations[0]",
        "pool.default_platform",
    }
    assert "unknown pod template 'default_usr'" in found["pool.common_pod_template[2]"]
    assert "default_ctrl, default_user" in found["pool.common_pod_template[2]"]
    assert "(a100, l40s)" in found["pool.platforms.a100_platform.override_pod_template[0]"]
    assert (
        "unknown resource validation 'default_gpu'"
        in found["pool.platforms.l40s_platform.resource_validations[0]"]
    )
    assert "'h100_platform' is not a platform" in found["pool.default_platform"]


def test_defined_validations_can_be_referenced():
    kwargs = seed_kwargs()
    rule = {
        "operator": "LE",
        "left_operand": "{{USER_GPU}}",
        "right_operand": "{{K8_GPU}}",
        "assert_message": "Value {{USER_GPU}} too high for GPU",
    }
    kwargs["resource_validations"] = {"gpu_check": [rule]}
    kwargs["pool"]["platforms"]["a100_platform"]["resource_validations"] = ["gpu_check"]
    documents = documents_of(capture_of(**kwargs))
    assert documents[("RESOURCE_VALIDATION", "gpu_check")] == {"gpu_check": [rule]}


def test_builtins_are_referenced_never_redefined():
    kwargs = seed_kwargs()
    kwargs["pod_templates"]["default_user"] = {"spec": {}}
    kwargs["resource_validations"] = {"default_cpu": []}
    assert [p for p, _ in problems(**kwargs)] == [
        "pod_templates.default_user",
        "resource_validations.default_cpu",
    ]


def test_role_rules():
    kwargs = seed_kwargs()
    kwargs["roles"] = [
        {**kwargs["roles"][0], "name": "shared"},
        {
            "name": "osmo-other",
            "description": "d",
            "actions": [{"base": "http", "path": "/api/pool/other*", "method": "post"}],
        },
        {
            "name": "osmo-none",
            "description": "d",
            "actions": [{"base": "http", "path": "/api/x", "method": "*"}],
        },
        {
            "name": "osmo-policy",
            "description": "d",
            "policies": [{"actions": ["workflow:*"], "resources": ["pool/shared*"]}],
        },
    ]
    found = problems(**kwargs)
    assert [p for p, _ in found] == [
        "roles[0].name",
        "roles[1].actions[0].path",
        "roles[2].actions[0]",
    ]
    assert "must start with 'osmo-'" in found[0][1]
    assert "'other*' does not match this pool ('shared_simulation_training_pool')" in found[1][1]
    assert "has no counterpart in OSMO's current roles" in found[2][1]


@pytest.mark.parametrize(
    ("template", "path"),
    [
        ({"spec": {"nodeSelector": "gpu"}}, "pod_templates.l40s.spec.nodeSelector"),
        ({"spec": {"containers": "not-a-list"}}, "pod_templates.l40s.spec.containers"),
        ({"spec": {"containers": [None]}}, "pod_templates.l40s.spec.containers[0]"),
        ({"spec": {"volumes": 5}}, "pod_templates.l40s.spec.volumes"),
        ({"sepc": {}}, "pod_templates.l40s.sepc"),
        ("x", "pod_templates.l40s"),
    ],
)
def test_malformed_pod_templates_are_errors_with_paths(template, path):
    kwargs = seed_kwargs()
    kwargs["pod_templates"]["l40s"] = template
    assert [p for p, _ in problems(**kwargs)] == [path]


def test_bad_document_fields_are_errors_with_paths():
    kwargs = seed_kwargs()
    kwargs["pool"]["platforms"]["l40s_platform"]["overide_pod_template"] = ["l40s"]
    kwargs["pool"].pop("backend")
    kwargs["pool"]["name"] = "shared pool"
    paths = [p for p, _ in problems(**kwargs)]
    assert paths == [
        "pool.name",
        "pool.backend",
        "pool.platforms.l40s_platform.overide_pod_template",
    ]


def test_kubernetes_target_from_the_same_documents():
    kwargs = seed_kwargs()
    kwargs["pod_templates"]["user"] = {
        "spec": {"containers": [{"name": "user", "image": "nvcr.io/nvidia/pytorch:24.08-py3"}]}
    }
    kwargs["pool"]["common_pod_template"].append("user")
    kwargs["target"] = "both"
    kwargs["kubernetes"] = {
        "create_namespaces": True,
        "node_resources": {
            "l40s_platform": {"cpu": 48, "gpu": 4, "memory": "384Gi", "storage": "3500Gi"},
            "a100_platform": {"cpu": 96, "gpu": 8, "memory": "1152Gi", "storage": "7500Gi"},
        },
    }
    capture = capture_of(**kwargs)
    ns = "shared-simulation-training-pool"
    template = capture.get(
        "kubernetes:core/v1:PodTemplate", f"shared-pool-podtemplate-{ns}-a100-platform"
    )
    spec = template.inputs["template"]["spec"]
    assert spec["nodeSelector"] == {"nvidia.com/gpu.product": "NVIDIA-A100"}
    assert spec["tolerations"][0]["value"] == "NVIDIA-A100"
    # As the API server spells them: the Kubernetes provider stores a built-in object so.
    assert spec["containers"][0]["resources"]["requests"] == {
        "cpu": "1",
        "memory": "1Gi",
        "ephemeral-storage": "1Gi",
    }
    policy = capture.get(
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy",
        "shared-pool-policy-a100-platform",
    )
    messages = [v["message"] for v in policy.inputs["spec"]["validations"]]
    assert "Value USER_CPU too high for CPU" in messages
    role = capture.get(
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding",
        f"shared-pool-rolebinding-{ns}-osmo-shared",
    )
    assert role.inputs["subjects"][0]["name"] == "osmo-shared"
    # And the OSMO documents all the same.
    assert len(capture.by_type(OSMO_CONFIG)) == 5


def test_osmo_templating_is_refused_for_kubernetes():
    kwargs = seed_kwargs()
    kwargs["pod_templates"]["user"] = {
        "spec": {
            "containers": [
                {"name": "user", "image": "x", "resources": {"limits": {"cpu": "{{USER_CPU}}"}}}
            ]
        }
    }
    kwargs["pool"]["common_pod_template"].append("user")
    documents = documents_of(capture_of(**kwargs))  # target osmo: OSMO fills it in
    assert ("POD_TEMPLATE", "user") in documents
    kwargs["target"] = "kubernetes"
    found = problems(**kwargs)
    assert found[0][0] == "pod_templates.user.spec.containers[0].resources.limits.cpu"
    assert all(p.startswith("kubernetes.node_resources.") for p, _ in found[1:])


def test_kubernetes_target_needs_node_resources_for_k8_rules():
    kwargs = seed_kwargs()
    kwargs["pod_templates"]["user"] = {"spec": {"containers": [{"name": "user", "image": "x"}]}}
    kwargs["pool"]["common_pod_template"].append("user")
    kwargs["target"] = "kubernetes"
    kwargs["kubernetes"] = {"node_resources": {"a100_platform": {"cpu": 96, "memory": "1152Gi"}}}
    found = problems(**kwargs)
    assert [p for p, _ in found] == [
        "kubernetes.node_resources.l40s_platform.cpu",
        "kubernetes.node_resources.l40s_platform.memory",
        "kubernetes.node_resources.l40s_platform.storage",
        "kubernetes.node_resources.a100_platform.storage",
    ]
    assert "resource validation 'default_cpu' ({{USER_CPU}} LE {{K8_CPU}})" in found[0][1]


def test_kubernetes_target_says_what_it_lacks():
    kwargs = seed_kwargs()
    kwargs["target"] = "kubernetes"
    # The seed as written, every problem at once: no user container, no node resources.
    found = dict(problems(**kwargs))
    assert list(found) == [
        *(
            f"kubernetes.node_resources.{p}.{r}"
            for p in ("l40s_platform", "a100_platform")
            for r in ("cpu", "memory", "storage")
        ),
        "pool.platforms.l40s_platform.override_pod_template",
        "pool.platforms.a100_platform.override_pod_template",
    ]
    assert (
        "default_user and default_ctrl exist only inside OSMO"
        in found["pool.platforms.l40s_platform.override_pod_template"]
    )


def test_models_follow_osmos_fields():
    models = osmo_facts()["models"]
    pool_fields = {**models["PoolBase"]["fields"], **models["PoolEditable"]["fields"]}
    assert set(OsmoPool.model_fields) == set(pool_fields)
    platform_fields = {**models["PlatformBase"]["fields"], **models["PlatformEditable"]["fields"]}
    assert set(OsmoPlatform.model_fields) == set(platform_fields)
    assert set(OsmoResourceRule.model_fields) == set(models["ResourceAssertion"]["fields"])
    assert set(OsmoRole.model_fields) - {"actions"} == set(models["Role"]["fields"])
    assert [f for f, v in pool_fields.items() if v.get("required")] == ["backend"]
    assert all(not field.is_required() for field in OsmoPlatform.model_fields.values())
    facts = osmo_facts()
    assert sorted(facts["builtin_pod_templates"]) == ["default_ctrl", "default_user"]
    assert sorted(facts["builtin_resource_validations"]) == [
        "default_cpu",
        "default_memory",
        "default_storage",
    ]
    assert facts["resource_operators"] == ["GT", "GE", "LT", "LE", "EQ"]


def test_the_client_writes_to_routes_osmo_has():
    from nodepools.backends.governance.osmo_client import WRITES, config_path

    routes = {(method, path) for method, path, _ in osmo_facts()["routes"]}
    for config_type, (collection, _key) in WRITES.items():
        path = config_path(config_type, None if collection else "{name}")
        assert ("PUT", path.replace("%7Bname%7D", "{name}")) in routes
        assert ("DELETE", config_path(config_type) + "/{name}") in routes
    cli = osmo_facts()["cli_update"]
    assert cli["POD_TEMPLATE"]["default"]["payload_key"] == WRITES["POD_TEMPLATE"][1]
    assert cli["RESOURCE_VALIDATION"]["default"]["payload_key"] == WRITES["RESOURCE_VALIDATION"][1]


def test_service_errors_never_quote_the_token():
    secret = "osmo-secret-value-123"
    for service, path in (
        ({"url": "http://osmo.example.com", "token": secret}, "service.url"),
        ({"tokn": secret}, "service.tokn"),
        ({"token": {"secure": secret}}, "service.token"),
        ({"token": ""}, "service.token"),
    ):
        found = problems(**seed_kwargs(), service=service)
        assert [p for p, _ in found] == [path]
        assert secret not in repr(found)
    assert "https://" in problems(**seed_kwargs(), service={"url": "http://osmo.example.com"})[0][1]
