"""PoolPlatforms: OSMO platforms as PodTemplates, admission policies and RBAC."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from nodepools import PoolPlatforms, SpecError
from nodepools.governance.admission_cel import CelError, compile_check, evaluate
from nodepools.governance.platform_objects import merge_pod_specs
from nodepools.offline import ProgramError, run
from nodepools.specs.core.labels import POOL_LABEL

from tests.golden import assert_golden
from tests.governance.stacks import by_name, gpu_spot_pool, osmo_args

POD_TEMPLATE = "kubernetes:core/v1:PodTemplate"
POLICY = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy"
BINDING = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"
NS = "shared-simulation-training-pool"


def capture_of(args: Any, name: str = "shared-pool"):
    return run(lambda: PoolPlatforms(name, args))


def problems(args: Any) -> list[tuple[str, str]]:
    with pytest.raises(ProgramError) as info:
        capture_of(args)
    assert info.value.capture.resources == []
    error = info.value.cause
    assert isinstance(error, SpecError), error
    return [(issue.path, issue.message) for issue in error.issues]


def template(capture, platform: str) -> dict[str, Any]:
    return capture.get(POD_TEMPLATE, f"shared-pool-podtemplate-{NS}-{platform}").inputs


def policy(capture, platform: str) -> dict[str, Any]:
    return capture.get(POLICY, f"shared-pool-policy-{platform}").inputs


# --- admission, simulated with the CEL runtime -------------------------------------------


def admit(policy_manifest: dict[str, Any], pod_spec: dict[str, Any]) -> list[str]:
    """The messages a ValidatingAdmissionPolicy denies `pod_spec` with ([] = admitted)."""
    spec = policy_manifest["spec"]
    bindings: dict[str, Any] = {"object": {"metadata": {"name": "p"}, "spec": pod_spec}}
    for condition in spec.get("matchConditions", []):
        if evaluate(condition["expression"], bindings) is not True:
            return []
    bindings["variables"] = {
        v["name"]: evaluate(v["expression"], bindings) for v in spec.get("variables", [])
    }
    denied = []
    for validation in spec["validations"]:
        outcome = evaluate(validation["expression"], bindings)
        assert outcome in (True, False), outcome
        if outcome is False:
            denied.append(validation["message"])
    return denied


def pod(*, selector: dict[str, str] | None = None, **requests: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "user", "image": "x", "resources": {"requests": dict(requests)}}]
    }
    if selector is not None:
        spec["nodeSelector"] = selector
    return spec


A100 = {"nvidia.com/gpu.product": "NVIDIA-A100"}
L40S = {"nvidia.com/gpu.product": "NVIDIA-L40S"}


def test_gpu_request_at_most_the_nodes_gpus():
    capture = capture_of(osmo_args())
    a100 = policy(capture, "a100-platform")
    assert admit(a100, pod(selector=A100, **{"nvidia.com/gpu": "8"})) == []
    assert admit(a100, pod(selector=A100, **{"nvidia.com/gpu": "9"})) == [
        "GPU request USER_GPU is more than a node has (8)"
    ]
    # Not an A100 pod: the A100 policy doesn't apply.
    assert admit(a100, pod(selector=L40S, **{"nvidia.com/gpu": "9"})) == []


def test_requests_sum_over_containers_and_limits_stand_in_for_requests():
    a100 = policy(capture_of(osmo_args()), "a100-platform")
    spec = pod(selector=A100, memory="1000Gi")
    spec["containers"].append(
        {"name": "side", "image": "x", "resources": {"limits": {"memory": "200Gi"}}}
    )
    [message] = admit(a100, spec)
    assert message.startswith("Memory request")


def test_pods_selecting_no_platform_are_held_to_the_default_platform():
    capture = capture_of(osmo_args())
    l40s = policy(capture, "l40s-platform")
    assert admit(l40s, pod(**{"nvidia.com/gpu": "5"})) != []
    assert admit(l40s, pod(selector=L40S, **{"nvidia.com/gpu": "4"})) == []
    assert admit(l40s, pod(selector=A100, **{"nvidia.com/gpu": "8"})) == []


def test_privileged_and_host_network_pods_are_denied_where_not_allowed():
    a100 = policy(capture_of(osmo_args()), "a100-platform")
    spec = pod(selector=A100)
    spec["hostNetwork"] = True
    spec["initContainers"] = [{"name": "i", "image": "x", "securityContext": {"privileged": True}}]
    assert admit(a100, spec) == [
        "platform 'a100_platform' does not allow hostNetwork pods",
        "platform 'a100_platform' does not allow privileged containers",
    ]


def test_every_emitted_expression_compiles():
    capture = capture_of(osmo_args())
    for resource in capture.by_type(POLICY):
        spec = resource.inputs["spec"]
        for condition in spec["matchConditions"]:
            compile_check(condition["expression"])
        for variable in spec["variables"]:
            compile_check(variable["expression"], expect="DOUBLE")
        for validation in spec["validations"]:
            compile_check(validation["expression"])
            if "messageExpression" in validation:
                compile_check(validation["messageExpression"], expect="STRING")


def test_message_expression_shows_the_request():
    a100 = policy(capture_of(osmo_args()), "a100-platform")
    gpu_rule = next(v for v in a100["spec"]["validations"] if "user_gpu" in v["expression"])
    bindings = {"object": {"spec": pod(selector=A100)}, "variables": {"user_gpu": 9.0}}
    assert evaluate(gpu_rule["messageExpression"], bindings).startswith("GPU request 9")


# --- the OSMO example ----------------------------------------------------------------


def test_osmo_objects_match_golden():
    assert_golden("governance/osmo_platforms.json", by_name(capture_of(osmo_args()).resources))


def test_pod_templates_carry_selector_tolerations_and_default_requests():
    capture = capture_of(osmo_args())
    a100 = template(capture, "a100-platform")
    assert a100["metadata"] == {
        "name": "a100-platform",
        "namespace": NS,
        "labels": {"nodepools.dev/platform": "a100-platform"},
    }
    spec = a100["template"]["spec"]
    assert spec["nodeSelector"] == A100
    assert spec["tolerations"] == [
        {
            "key": "nvidia.com/gpu.product",
            "operator": "Equal",
            "value": "NVIDIA-A100",
            "effect": "NoSchedule",
        }
    ]
    [user] = spec["containers"]
    # USER_GPU is 0: no accelerator request at all.
    assert user["resources"] == {
        "requests": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"}
    }
    l40s = template(capture, "l40s-platform")
    assert l40s["metadata"]["annotations"] == {"nodepools.dev/default-platform": "true"}


def test_policy_is_bound_to_the_pool_namespaces():
    capture = capture_of(osmo_args())
    binding = capture.get(BINDING, "shared-pool-policybinding-a100-platform").inputs["spec"]
    assert binding == {
        "policyName": f"{NS}-a100-platform",
        "validationActions": ["Deny"],
        "matchResources": {
            "namespaceSelector": {
                "matchExpressions": [
                    {"key": "kubernetes.io/metadata.name", "operator": "In", "values": [NS]}
                ]
            }
        },
    }


def test_roles_grant_the_groups_submit_rights_in_the_pool_namespaces():
    capture = capture_of(osmo_args())
    role = capture.get(
        "kubernetes:rbac.authorization.k8s.io/v1:Role", f"shared-pool-role-{NS}-osmo-shared"
    )
    assert role.inputs["metadata"] == {"name": "osmo-shared", "namespace": NS}
    assert {
        "apiGroups": [""],
        "resources": ["pods"],
        "verbs": ["create", "delete", "get", "list", "watch"],
    } in role.inputs["rules"]
    binding = capture.get(
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding",
        f"shared-pool-rolebinding-{NS}-osmo-shared",
    ).inputs
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": "osmo-shared",
    }
    assert binding["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "osmo-shared"}
    ]


def test_outputs():
    capture = capture_of(osmo_args())
    [component] = capture.components("nodepools:index:PoolPlatforms")
    outputs = capture.outputs_of(component)
    assert outputs["default_platform"] == "l40s_platform"
    assert outputs["platforms"]["a100_platform"] == {
        "pod_template": "a100-platform",
        "policy": f"{NS}-a100-platform",
    }
    assert outputs["namespaces"] == [NS]


def test_namespaces_are_created_first_when_asked():
    capture = capture_of(osmo_args())
    namespace = capture.get("kubernetes:core/v1:Namespace", f"shared-pool-namespace-{NS}")
    pod_template = capture.get(POD_TEMPLATE, f"shared-pool-podtemplate-{NS}-a100-platform")
    assert namespace.urn in pod_template.dependencies


# --- merging -------------------------------------------------------------------------


def test_templates_merge_later_wins_and_named_lists_by_name():
    common = {
        "containers": [{"name": "user", "image": "a", "env": [{"name": "A", "value": "1"}]}],
        "tolerations": [{"key": "x", "operator": "Exists"}],
        "restartPolicy": "Never",
    }
    platform = {
        "containers": [
            {"name": "user", "env": [{"name": "A", "value": "2"}, {"name": "B", "value": "3"}]},
            {"name": "sidecar", "image": "s"},
        ],
        "tolerations": [{"key": "y", "operator": "Exists"}],
    }
    assert merge_pod_specs(common, platform) == {
        "containers": [
            {
                "name": "user",
                "image": "a",
                "env": [{"name": "A", "value": "2"}, {"name": "B", "value": "3"}],
            },
            {"name": "sidecar", "image": "s"},
        ],
        "tolerations": [{"key": "y", "operator": "Exists"}],
        "restartPolicy": "Never",
    }
    assert common["containers"][0]["env"] == [{"name": "A", "value": "1"}]  # inputs untouched


def test_platform_variables_override_common_ones_and_gpus_become_limits():
    args = osmo_args()
    args["platforms"]["a100_platform"]["default_variables"] = {"USER_GPU": 2, "USER_MEMORY": "16Gi"}
    args["platforms"]["a100_platform"]["pod_template"] = {
        "containers": [{"name": "user", "resources": {"requests": {"cpu": "4"}}}]
    }
    [user] = template(capture_of(args), "a100-platform")["template"]["spec"]["containers"]
    assert user["resources"] == {
        "requests": {
            "cpu": "4",
            "memory": "16Gi",
            "ephemeral-storage": "1Gi",
            "nvidia.com/gpu": "2",
        },
        "limits": {"nvidia.com/gpu": "2"},
    }


def test_a_pool_component_adds_its_identity_selector_and_taint_tolerations():
    def program():
        pool = gpu_spot_pool()
        args = osmo_args()
        args["pool"] = pool
        args["roles"][0]["pools"] = "gpu-*"
        del args["platforms"]["a100_platform"]["node_resources"]["gpu"]
        PoolPlatforms("shared-pool", args)

    capture = run(program)
    spec = capture.get(POD_TEMPLATE, "shared-pool-podtemplate-gpu-spot-a100-platform").inputs[
        "template"
    ]["spec"]
    assert spec["nodeSelector"] == {POOL_LABEL: "gpu-spot", **A100}
    assert {t["key"] for t in spec["tolerations"]} == {
        "nvidia.com/gpu.product",
        "nvidia.com/gpu",
        "spot",
    }
    a100 = capture.get(POLICY, "shared-pool-policy-a100-platform").inputs
    # K8_GPU falls back to the pool's GPUs per node (g5.12xlarge: 4).
    assert admit(a100, pod(selector=A100, **{"nvidia.com/gpu": "5"})) != []
    assert admit(a100, pod(selector=A100, **{"nvidia.com/gpu": "4"})) == []


def test_platforms_of_a_karpenter_pool_select_it_and_know_its_gpus_per_node():
    from tests.governance.stacks import karpenter_gpu_pool

    def program():
        PoolPlatforms(
            "platforms",
            {
                "pool": karpenter_gpu_pool(),
                "common_pod_template": {"containers": [{"name": "user", "image": "x"}]},
                "common_resource_validations": ["default_gpu"],
                "platforms": {"a10g": {}},
            },
        )

    capture = run(program)
    ns = "gpu-karpenter"
    spec = capture.get(POD_TEMPLATE, f"platforms-podtemplate-{ns}-a10g").inputs["template"]["spec"]
    assert spec["nodeSelector"] == {POOL_LABEL: "gpu-karpenter"}
    assert {t["key"] for t in spec["tolerations"]} == {"nvidia.com/gpu", "spot"}
    a10g = capture.get(POLICY, "platforms-policy-a10g").inputs
    # K8_GPU is the pool's GPUs per node (g5.12xlarge: 4).
    assert admit(a10g, pod(**{"nvidia.com/gpu": "5"})) != []
    assert admit(a10g, pod(**{"nvidia.com/gpu": "4"})) == []


# --- errors, with paths, before anything is registered -----------------------------------


def test_default_platform_must_exist():
    args = osmo_args()
    args["default_platform"] = "h100_platform"
    assert problems(args) == [
        (
            "default_platform",
            "'h100_platform' is not a platform of this pool ('l40s_platform', 'a100_platform')",
        )
    ]


def test_a_missing_default_platform_does_not_hide_the_templates_problems():
    args = osmo_args()
    args["default_platform"] = "nope"
    args["platforms"]["a100_platform"]["pod_template"] = {"hostNetwork": True}
    args["roles"][0]["pools"] = "other*"
    found = problems(args)
    assert [path for path, _ in found] == [
        "default_platform",
        "roles[0].pools",
        "platforms.a100_platform.pod_template.hostNetwork",
    ]
    assert found[0][1].startswith("'nope' is not a platform of this pool")
    assert "does not allow hostNetwork pods (`host_network_allowed` is false)" in found[2][1]


def test_privileged_template_on_a_platform_that_forbids_it():
    args = osmo_args()
    args["platforms"]["a100_platform"]["pod_template"] = {
        "containers": [{"name": "user", "securityContext": {"privileged": True}}]
    }
    assert problems(args) == [
        (
            "platforms.a100_platform.pod_template.containers[0].securityContext.privileged",
            "true can't be used on container 'user': platform 'a100_platform' does not allow "
            "privileged containers (`privileged_allowed` is false)",
        )
    ]


def test_privileged_common_template_is_blamed_on_the_common_template():
    args = osmo_args()
    args["common_pod_template"]["containers"][0]["securityContext"] = {"privileged": True}
    args["common_pod_template"]["hostNetwork"] = True
    args["platforms"]["l40s_platform"]["privileged_allowed"] = True
    args["platforms"]["l40s_platform"]["host_network_allowed"] = True
    assert problems(args) == [
        (
            "common_pod_template.hostNetwork",
            "true can't be used on platform 'a100_platform', which does not allow hostNetwork "
            "pods (`host_network_allowed` is false)",
        ),
        (
            "common_pod_template.containers[0].securityContext.privileged",
            "true can't be used on container 'user': platform 'a100_platform' does not allow "
            "privileged containers (`privileged_allowed` is false)",
        ),
    ]


def test_a_platform_may_allow_privileged_templates():
    args = osmo_args()
    args["platforms"]["a100_platform"]["privileged_allowed"] = True
    args["platforms"]["a100_platform"]["pod_template"] = {
        "containers": [{"name": "user", "securityContext": {"privileged": True}}]
    }
    capture = capture_of(args)
    a100 = policy(capture, "a100-platform")
    assert "no privileged" not in str(a100["spec"]["validations"])
    spec = pod(selector=A100)
    spec["containers"][0]["securityContext"] = {"privileged": True}
    assert admit(a100, spec) == []


def test_bad_cel_fails_at_construction_with_its_path():
    args = osmo_args()
    args["platforms"]["a100_platform"]["resource_validations"] = [
        {"expression": "objct.spec.containers.size() <= 2", "message": "at most 2 containers"}
    ]
    [(path, message)] = problems(args)
    assert path == "platforms.a100_platform.resource_validations[0].expression"
    assert message.startswith("'objct.spec.containers.size() <= 2' does not compile:")
    assert "undeclared reference to 'objct" in message


def test_cel_must_be_a_condition():
    with pytest.raises(CelError, match="evaluates to STRING, but a BOOL is needed"):
        compile_check("object.metadata.name + 'x'")
    with pytest.raises(CelError, match="no matching overload"):
        compile_check("quantity('1Gi') <= 2.0")


def test_user_cel_validation_is_emitted_and_enforced():
    args = osmo_args()
    args["platforms"]["a100_platform"]["resource_validations"] = [
        {"expression": "object.spec.containers.size() <= 1", "message": "one container only"}
    ]
    a100 = policy(capture_of(args), "a100-platform")
    two = pod(selector=A100)
    two["containers"].append({"name": "b", "image": "x"})
    assert admit(a100, two) == ["one container only"]


def test_node_resource_rules_need_node_resources():
    args = osmo_args()
    del args["platforms"]["l40s_platform"]["node_resources"]["memory"]
    assert problems(args) == [
        (
            "common_resource_validations[2].right_operand",
            "'{{K8_MEMORY}}' needs the platform's `node_resources.memory` (the most one node "
            "offers), which is not set",
        )
    ]


def test_unknown_validation_set_and_bad_operand():
    args = osmo_args()
    args["common_resource_validations"].append("default_network")
    args["platforms"]["a100_platform"]["resource_validations"] = [
        {"operator": "LE", "left_operand": "{{USER_CPU}}", "right_operand": "{{K8_DISK}}"}
    ]
    paths = [path for path, _ in problems(args)]
    assert paths == [
        "common_resource_validations[4]",
        "platforms.a100_platform.resource_validations[0].right_operand",
        "common_resource_validations[4]",
    ]


def test_literal_limits_and_lower_bounds():
    args = osmo_args()
    args["platforms"]["a100_platform"]["resource_validations"] = [
        {
            "operator": "GT",
            "left_operand": "{{USER_CPU}}",
            "right_operand": 0,
            "assert_message": "CPU {{USER_CPU}} must be positive",
        },
        {"operator": "LE", "left_operand": "{{USER_MEMORY}}", "right_operand": "64Gi"},
    ]
    a100 = policy(capture_of(args), "a100-platform")
    assert admit(a100, pod(selector=A100, cpu="1", memory="64Gi")) == []
    assert admit(a100, pod(selector=A100, cpu="1", memory="65Gi")) == [
        "USER_MEMORY must be <= 64Gi"
    ]
    assert admit(a100, pod(selector=A100, memory="1Gi")) == ["CPU USER_CPU must be positive"]


def test_platform_without_selector_is_refused_when_others_exist():
    args = osmo_args()
    del args["platforms"]["a100_platform"]["node_selector"]
    [(path, message)] = problems(args)
    assert path == "platforms.a100_platform.node_selector"
    assert "needs a node selector" in message


def test_role_glob_must_match_the_pool():
    args = osmo_args()
    args["roles"][0]["pools"] = "private*"
    assert problems(args) == [
        (
            "roles[0].pools",
            "'private*' does not match this pool ('shared_simulation_training_pool')",
        )
    ]


def test_template_without_containers_is_refused():
    args = osmo_args()
    args["common_pod_template"] = {}
    paths = [path for path, _ in problems(args)]
    assert paths == [
        "platforms.a100_platform.pod_template.containers",
        "platforms.l40s_platform.pod_template.containers",
    ]


def test_unknown_variable_is_refused():
    args = osmo_args()
    args["common_default_variables"]["USER_SHM"] = "1Gi"
    assert problems(args) == [("common_default_variables.USER_SHM", "unknown field (got '1Gi')")]


def test_pool_names_map_to_kubernetes_names_or_are_refused():
    args = osmo_args()
    args["pool"] = "Shared Pool"
    [(path, message)] = problems(args)
    assert path == "pool.name"
    assert "maps to 'shared pool'" in message


# --- determinism ---------------------------------------------------------------------


def test_same_input_in_any_order_registers_identical_inputs():
    args = osmo_args()
    reordered = copy.deepcopy(args)
    reordered["platforms"] = dict(reversed(list(args["platforms"].items())))
    reordered["roles"].append({"name": "osmo-admins", "pools": "*", "groups": ["b", "a"]})
    args["roles"].insert(0, {"name": "osmo-admins", "pools": "*", "groups": ["a", "b"]})
    assert by_name(capture_of(args).resources) == by_name(capture_of(reordered).resources)
