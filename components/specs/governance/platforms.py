"""Args of PoolPlatforms: OSMO-style platforms (one per machine type) of one pool.

The spec checks each field; `PoolPlatformsArgs.consistency_issues` what needs no rendering
across fields (a default platform that exists, roles that match the pool, names that stay
distinct as Kubernetes names); the renderer (`nodepools.governance.platform_objects`) reports
those together with its own (merged pod templates, CEL that compiles), all at once.
"""

from __future__ import annotations

import fnmatch
from typing import Annotated, Any, Literal

from nodepools.json_values import is_dict
from nodepools.specs.core.base import (
    Issue,
    NestedIssues,
    PathError,
    SpecModel,
    format_path,
    register_union_tags,
)
from nodepools.specs.core.kube import Amount, DnsLabel, ObjectName, kube_name, kube_name_problem
from nodepools.specs.core.labels import LabelKey, Labels, label_value_problem
from nodepools.specs.core.taints import TaintEffect, parse_taint_string
from nodepools.specs.governance.governed_pool import GovernedPool
from pydantic import AfterValidator, BeforeValidator, Discriminator, Field, Tag, model_validator

USER_VARIABLES = ("USER_CPU", "USER_GPU", "USER_MEMORY", "USER_STORAGE")
NODE_VARIABLES = ("K8_CPU", "K8_GPU", "K8_MEMORY", "K8_STORAGE")
RuleOperator = Literal["LE", "LT", "GE", "GT"]


def _schema_checked(spec: dict[str, Any]) -> dict[str, Any]:
    from nodepools.specs.governance.pod_spec_schema import pod_spec_issues

    if spec and (issues := pod_spec_issues(spec, "")):
        raise NestedIssues(issues)
    return spec


PartialPodSpec = Annotated[dict[str, Any], AfterValidator(_schema_checked)]
"""A partial pod spec, checked against the Kubernetes core/v1 schema (no field required
but a list item's `name`; no unknown field)."""


class Variables(SpecModel):
    """OSMO's default variables: what a workload gets when it asks for nothing.

    Rendered as resource requests of every container of the platform's PodTemplate
    (`USER_GPU` as request and limit of the pool's accelerator resource, omitted at 0).
    """

    USER_CPU: Amount | None = Field(default=None, description="CPU request; default None.")
    USER_GPU: int | None = Field(
        default=None, ge=0, description="Accelerators per pod; default None."
    )
    USER_MEMORY: Amount | None = Field(default=None, description="Memory request; default None.")
    USER_STORAGE: Amount | None = Field(
        default=None, description="Ephemeral storage request; default None."
    )

    def merged(self, override: Variables) -> Variables:
        return Variables(**{**self.set_values(), **override.set_values()})

    def set_values(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class NodeResources(SpecModel):
    """Allocatable resources of one node of a platform: the `{{K8_*}}` of OSMO's rules."""

    cpu: Amount | None = Field(default=None, description="`K8_CPU`; default None.")
    gpu: int | None = Field(
        default=None, ge=0, description="`K8_GPU`; default None (the pool's GPUs per node)."
    )
    memory: Amount | None = Field(default=None, description="`K8_MEMORY`; default None.")
    storage: Amount | None = Field(default=None, description="`K8_STORAGE`; default None.")


class ResourceRule(SpecModel):
    """An OSMO resource validation rule: `{{USER_X}} <operator> {{K8_X}}` or a quantity."""

    operator: RuleOperator = Field(description="`LE`, `LT`, `GE` or `GT`. Required.")
    left_operand: Literal["{{USER_CPU}}", "{{USER_GPU}}", "{{USER_MEMORY}}", "{{USER_STORAGE}}"] = (
        Field(description="The pod's request, e.g. `{{USER_GPU}}`. Required.")
    )
    right_operand: str | int | float = Field(
        description="`{{K8_CPU}}`/`{{K8_GPU}}`/`{{K8_MEMORY}}`/`{{K8_STORAGE}}` (the "
        "platform's node resources) or a quantity. Required."
    )
    assert_message: str = Field(
        default="",
        description="Message on rejection; `{{USER_X}}` and `{{K8_X}}` are filled in. "
        "Default: the rule itself.",
    )


class CelValidation(SpecModel):
    """A ValidatingAdmissionPolicy validation written in CEL (compiled at construction)."""

    expression: str = Field(description="CEL over `object` (the Pod), true to admit. Required.")
    message: str = Field(default="", description="Message on rejection; default the expression.")


def _validation_tag(value: Any) -> str:
    if isinstance(value, str):
        return "named"
    if is_dict(value):
        return "cel" if "expression" in value else "rule"
    return "cel" if isinstance(value, CelValidation) else "rule"


register_union_tags("named", "cel", "rule")

ResourceValidation = Annotated[
    Annotated[str, Tag("named")]
    | Annotated[ResourceRule, Tag("rule")]
    | Annotated[CelValidation, Tag("cel")],
    Discriminator(_validation_tag),
]


def _toleration(value: Any) -> Any:
    # Also accepted: the taint it tolerates, as kubectl writes it ("key=value:Effect").
    if not isinstance(value, str):
        return value
    taint = parse_taint_string(value)
    if taint["value"] is None:
        return {"key": taint["key"], "operator": "Exists", "effect": taint["effect"]}
    return {**taint, "operator": "Equal"}


class Toleration(SpecModel):
    """A pod toleration, in Kubernetes field names."""

    key: LabelKey | None = Field(default=None, description="Taint key; default None (all keys).")
    operator: Literal["Equal", "Exists"] = Field(
        default="Equal", description="`Equal` or `Exists`; default `Equal`."
    )
    value: str | None = Field(default=None, description="Taint value for `Equal`; default None.")
    effect: TaintEffect | None = Field(default=None, description="Effect; default None (all).")
    tolerationSeconds: int | None = Field(
        default=None, description="For `NoExecute`: how long to stay; default None (forever)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> Toleration:
        if self.operator == "Exists" and self.value:
            raise PathError("value", f"{self.value!r} must be empty when `operator` is Exists")
        if self.key is None and self.operator != "Exists":
            raise PathError(
                "operator",
                f"{self.operator!r} needs a `key`: a toleration without one must use `Exists`",
            )
        if self.value and (problem := label_value_problem(self.value)):
            raise PathError("value", problem.replace("label value", "toleration value"))
        if self.tolerationSeconds is not None and self.effect != "NoExecute":
            raise PathError(
                "tolerationSeconds",
                f"{self.tolerationSeconds} only applies to effect NoExecute (`effect` is "
                f"{self.effect!r})",
            )
        return self

    def manifest(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class Platform(SpecModel):
    """One machine type of the pool: how to reach it, what pods get, what they may ask."""

    description: str = Field(default="", description="Free text; default empty.")
    node_selector: Labels = Field(
        default_factory=dict,
        description="Node labels of this machine type, e.g. `nvidia.com/gpu.product: "
        "NVIDIA-A100`; default {}. Needed (here or in `pod_template.nodeSelector`) unless "
        "the platform is the only one.",
    )
    tolerations: list[Annotated[Toleration, BeforeValidator(_toleration)]] = Field(
        default_factory=list[Toleration], description="Tolerations added to its pods; default []."
    )
    pod_template: PartialPodSpec = Field(
        default_factory=dict,
        description="A partial pod spec merged over `common_pod_template` (later wins, lists "
        "of named items merged by `name`); default {}.",
    )
    default_variables: Variables = Field(
        default_factory=Variables,
        description="Overrides of `common_default_variables`; default {}.",
    )
    resource_validations: list[ResourceValidation] = Field(
        default_factory=list[ResourceValidation],
        description="Added to `common_resource_validations`: a built-in set name "
        "(`default_cpu`, `default_gpu`, `default_memory`, `default_storage`), an OSMO rule "
        "{operator, left_operand, right_operand, assert_message} or {expression, message} in "
        "CEL. Default [].",
    )
    node_resources: NodeResources = Field(
        default_factory=NodeResources,
        description="Allocatable resources per node (`{{K8_*}}`); default {} (`gpu` from "
        "the pool's GPUs per node when known).",
    )
    host_network_allowed: bool = Field(
        default=False, description="Allow `hostNetwork: true` pods; default false."
    )
    privileged_allowed: bool = Field(
        default=False, description="Allow privileged containers; default false."
    )


class Role(SpecModel):
    """Groups allowed to submit workloads to the pools matching `pools`."""

    name: ObjectName = Field(description="Role name, e.g. `osmo-shared`. Required.")
    pools: str = Field(
        min_length=1,
        description="Pool name or glob (`shared*` matches names starting with `shared`). Required.",
    )
    groups: list[str] = Field(min_length=1, description="Subject groups. Required.")
    description: str = Field(default="", description="Free text; default empty.")

    def matches(self, pool_name: str) -> bool:
        return fnmatch.fnmatchcase(pool_name, self.pools)


def _pool_by_name(value: Any) -> Any:
    # A platform's pool is often one that exists outside this program (an OSMO pool).
    return {"name": value} if isinstance(value, str) else value


class PoolPlatformsArgs(SpecModel):
    """Args of `PoolPlatforms`."""

    pool: Annotated[GovernedPool, BeforeValidator(_pool_by_name)] = Field(
        description="The pool: a name, a pool component or a description {name, "
        "node_labels, taints, gpus_per_node, gpu_resource}. Required."
    )
    platforms: dict[str, Platform] = Field(
        min_length=1, description="Platforms by name (one per machine type). Required."
    )
    default_platform: str | None = Field(
        default=None,
        description="Platform for pods that select none; default None (such pods are not "
        "validated).",
    )
    common_pod_template: PartialPodSpec = Field(
        default_factory=dict, description="Partial pod spec every platform starts from; default {}."
    )
    common_default_variables: Variables = Field(
        default_factory=Variables,
        description="`USER_CPU`, `USER_GPU`, `USER_MEMORY`, `USER_STORAGE` for every "
        "platform; default {}.",
    )
    common_resource_validations: list[ResourceValidation] = Field(
        default_factory=list[ResourceValidation],
        description="Validations of every platform; default [].",
    )
    roles: list[Role] = Field(
        default_factory=list[Role],
        description="Who may submit workloads; each role's `pools` must match this pool. "
        "Default [].",
    )
    namespaces: list[DnsLabel] | None = Field(
        default=None,
        description="Namespaces whose pods run on the pool (templates, policy bindings and "
        "role bindings go there); default [the pool's Kubernetes name].",
    )
    create_namespaces: bool = Field(
        default=False, description="Create `namespaces`; default false (they exist)."
    )

    @property
    def namespace_names(self) -> list[str]:
        return sorted(set(self.namespaces or [kube_name(self.pool.name)]))

    def consistency_issues(self) -> list[Issue]:
        """Problems across fields (a default platform that exists, roles that match the
        pool, distinct names). Not a model validator: raised there, they would stop
        validation before the renderer reports the templates' problems, so the renderer
        collects them together with its own and raises every problem at once."""
        issues: list[Issue] = []
        if self.default_platform is not None and self.default_platform not in self.platforms:
            known = ", ".join(repr(name) for name in self.platforms)
            issues.append(
                Issue(
                    "default_platform",
                    f"{self.default_platform!r} is not a platform of this pool ({known})",
                )
            )
        seen: dict[str, str] = {}
        for name in self.platforms:
            path = format_path(["platforms", name])
            if problem := kube_name_problem(name):
                issues.append(Issue(path, problem))
            elif kube_name(name) in seen:
                issues.append(
                    Issue(
                        path, f"{name!r} maps to the same object names as {seen[kube_name(name)]!r}"
                    )
                )
            seen.setdefault(kube_name(name), name)
        for i, role in enumerate(self.roles):
            if not role.matches(self.pool.name):
                issues.append(
                    Issue(
                        f"roles[{i}].pools",
                        f"{role.pools!r} does not match this pool ({self.pool.name!r})",
                    )
                )
        if self.namespaces is not None and len(set(self.namespaces)) != len(self.namespaces):
            issues.append(Issue("namespaces", f"{self.namespaces!r} lists a namespace twice"))
        return issues


__all__ = [
    "NODE_VARIABLES",
    "USER_VARIABLES",
    "CelValidation",
    "NodeResources",
    "PartialPodSpec",
    "Platform",
    "PoolPlatformsArgs",
    "ResourceRule",
    "ResourceValidation",
    "Role",
    "Toleration",
    "Variables",
]
