"""The registration floors a plan is measured against: the same registrations, made directly.

A plan records every registration (type, name, parent, inputs, component outputs). A floor
program registers exactly those again, with no library code in between, in one of two ways:

- `raw`: each resource as a bare `pulumi.CustomResource` / `pulumi.ComponentResource`
  subclass with the recorded type token and inputs: the cost of the Pulumi SDK alone.
  The subclass matters: the SDK walks the call stack of every registration to record its
  source position, starting below the third `__init__` (Resource, CustomResource, the
  concrete class). A bare `CustomResource(...)` call has no third `__init__`, so the SDK
  skips the walk, which no real resource (generated provider class or user component)
  does; a one-line subclass, like every generated class, keeps the floor honest.
- `sdk`: each custom resource through its provider SDK class (`pulumi_aws.eks.NodeGroup`,
  `pulumi_oci.containerengine.NodePool`, `pulumi_kubernetes.apiextensions.CustomResource`,
  ...), the way a hand-written program registers it; components as in `raw`. This adds the
  provider SDKs' own per-resource cost (typed args, typed outputs resolved per property)
  and, in a fresh process, their imports.

Both make the same registrations as the plan, options included: parent, the dependencies
(as `depends_on`), aliases, ignore/replace-on changes, provider version and the rest; and
both check that what they registered is what the plan registered (inputs and options,
resource by resource), so a floor can never be cheaper because it registered less.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

FLOORS = ("raw", "sdk")

# Kubernetes API groups whose pulumi_kubernetes module is named differently.
_K8S_MODULES = {
    "core": "core",
    "apps": "apps",
    "policy": "policy",
    "rbac.authorization.k8s.io": "rbac",
    "admissionregistration.k8s.io": "admissionregistration",
    "scheduling.k8s.io": "scheduling",
    "batch": "batch",
    "networking.k8s.io": "networking",
    "storage.k8s.io": "storage",
}


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _sdk_constructor(token: str) -> Callable[..., Any] | None:
    """The provider SDK class for a type token, or None where it is not a provider type
    (dynamic resources register as bare CustomResources in every SDK)."""
    package, module_path, class_name = token.split(":")
    if package == "kubernetes":
        group, _, version = module_path.rpartition("/")
        module_name = _K8S_MODULES.get(group)
        if module_name is None:  # a custom resource of a CRD (Karpenter, Kueue, ...)
            return None
        module = importlib.import_module(f"pulumi_kubernetes.{module_name}.{version}")
        return getattr(module, class_name)
    if package not in ("aws", "oci"):
        return None
    module = importlib.import_module(f"pulumi_{package}.{module_path.split('/')[0].lower()}")
    return getattr(module, class_name)


def _sdk_kwargs(constructor: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    from pulumi import _types

    module = importlib.import_module(constructor.__module__)
    args_class = getattr(module, f"{constructor.__name__}Args", None) or getattr(
        module, f"{constructor.__name__}InitArgs", None
    )
    names = (
        {
            pulumi: python
            for python, pulumi in _types.input_type_py_to_pulumi_names(args_class).items()
        }
        if args_class is not None
        else {}
    )
    return {names.get(key) or _snake(key): value for key, value in inputs.items()}


def _options(record: dict[str, Any], created: dict[str, Any], typed: bool = False) -> Any:
    """The recorded resource options (see `nodepools.offline` CapturedResource.options).

    `typed`: a provider SDK class makes the registration, and adds the type aliases of its
    own earlier API versions itself (pulumi_kubernetes does), so they are not passed twice."""
    import pulumi

    options = record["options"]
    parent = created.get(record["parent"]) if record["parent"] else None
    depends_on = [created[urn] for urn in record["dependencies"] if urn in created]
    aliases: list[Any] = []
    for alias in options.get("aliases") or ():
        if "urn" in alias:
            aliases.append(alias["urn"])
            continue
        spec = alias["spec"]
        if typed and set(spec) <= {"type", "parentUrn"} and not spec.get("parentUrn"):
            continue
        unsupported = set(spec) - {"name", "type", "parentUrn"}
        if unsupported or spec.get("parentUrn"):
            raise NotImplementedError(f"alias form {spec} is not replayed by the floors")
        # Only the fields the spec names: an Alias field left out means "the resource's own".
        fields = {"name": spec.get("name"), "type_": spec.get("type")}
        aliases.append(pulumi.Alias(**{key: value for key, value in fields.items() if value}))
    return pulumi.ResourceOptions(
        parent=parent,
        depends_on=depends_on or None,
        aliases=aliases or None,
        ignore_changes=options.get("ignoreChanges") or None,
        replace_on_changes=options.get("replaceOnChanges") or None,
        additional_secret_outputs=options.get("additionalSecretOutputs") or None,
        delete_before_replace=options.get("deleteBeforeReplace") or None,
        retain_on_delete=options.get("retainOnDelete") or None,
        protect=options.get("protect") or None,
        version=options.get("version") or None,
    )


def _dependency_order(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`records` with every parent and dependency before the resources that need it
    (the capture lists siblings by type and name, not in the order they can be made)."""
    by_urn = {record["urn"]: record for record in records}
    ordered: list[dict[str, Any]] = []
    placed: set[str] = set()

    def place(record: dict[str, Any]) -> None:
        if record["urn"] in placed:
            return
        placed.add(record["urn"])
        for urn in (record["parent"], *record["dependencies"]):
            if urn in by_urn:
                place(by_urn[urn])
        ordered.append(record)

    for record in records:
        place(record)
    return ordered


def floor_program(records: list[dict[str, Any]], floor: str) -> Callable[[], None]:
    """A Pulumi program that registers `records` again directly (see the module docstring)."""
    import pulumi

    class RawCustom(pulumi.CustomResource):
        def __init__(self, t: str, name: str, props: dict, opts: Any) -> None:
            super().__init__(t, name, props, opts)

    class RawComponent(pulumi.ComponentResource):
        def __init__(self, t: str, name: str, props: dict, opts: Any) -> None:
            super().__init__(t, name, props, opts)

    def register_custom(record: dict[str, Any], created: dict[str, Any]) -> pulumi.Resource:
        inputs = dict(record["inputs"])
        constructor = _sdk_constructor(record["type"]) if floor == "sdk" else None
        opts = _options(record, created, typed=constructor is not None)
        if constructor is not None:
            return constructor(record["name"], opts=opts, **_sdk_kwargs(constructor, inputs))
        if floor == "sdk" and record["type"].startswith("kubernetes:"):
            from pulumi_kubernetes.apiextensions import CustomResource

            return CustomResource(
                record["name"],
                api_version=inputs.pop("apiVersion"),
                kind=inputs.pop("kind"),
                metadata=inputs.pop("metadata", None),
                opts=opts,
                **inputs,
            )
        return RawCustom(record["type"], record["name"], inputs, opts)

    records = _dependency_order(records)

    def program() -> None:
        created: dict[str, pulumi.Resource] = {}
        components: list[tuple[pulumi.ComponentResource, dict[str, Any]]] = []
        for record in records:
            if record["custom"]:
                resource = register_custom(record, created)
            else:
                opts = _options(record, created)
                resource = RawComponent(
                    record["type"], record["name"], dict(record["inputs"]), opts
                )
                components.append((resource, record["outputs"]))
            created[record["urn"]] = resource
        for component, outputs in components:
            component.register_outputs(outputs)

    return program


def same_registration(resource: Any) -> tuple[Any, ...]:
    """What must match between a plan's registration and a floor's."""
    return (
        resource.inputs,
        resource.parent,
        tuple(sorted(resource.dependencies)),
        resource.options,
    )


def check_same(records: list[dict[str, Any]], capture: Any) -> None:
    """Raise unless `capture` registered every record with the same inputs and options."""
    registered = {resource.urn: same_registration(resource) for resource in capture.resources}
    wrong = [
        r["urn"]
        for r in records
        if registered.get(r["urn"])
        != (r["inputs"], r["parent"], tuple(sorted(r["dependencies"])), r["options"])
    ]
    if wrong or len(registered) != len(records):
        raise AssertionError(
            f"the floor registered {len(registered)} resources for {len(records)} records; "
            f"{len(wrong)} differ (first: {wrong[:1]})"
        )
