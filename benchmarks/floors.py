"""The floors the plan and first use are measured against: what a user's own program costs.

The fleet floor: a plan records every registration (type, name, parent, inputs, options,
dependencies, component outputs), and `floor_program` registers exactly those again the way
a hand-written program does, with no library code in between:

- each provider resource through its typed provider SDK class (`pulumi_aws.eks.NodeGroup`,
  `pulumi_oci.containerengine.NodePool`, `pulumi_kubernetes.core.v1.Namespace`, ...), and
  each custom resource of a CRD (Karpenter's, Kueue's) through
  `pulumi_kubernetes.apiextensions.CustomResource`, with the options the plan gave it; the
  class's module is imported by the first registration of its type, as a program's imports
  would load it, so a cold floor pays the SDK imports a cold plan pays;
- what no provider SDK makes (a dynamic provider's resource, the components) as a one-line
  subclass of `pulumi.CustomResource` / `pulumi.ComponentResource`. The subclass matters: the
  SDK walks the call stack of every registration from the third `__init__` up (Resource,
  CustomResource, the concrete class), which every real resource has and a bare
  `CustomResource(...)` call does not.

The only work a hand-written program would not do is finding the class of a type token and
the SDK's Python name of each top-level input, both once per type, then renaming the
inputs of each resource (a dict comprehension). `check_same` proves the floor registered
exactly what the plan registered (inputs and options, resource by resource), so the floor
can never be cheaper because it registered less.

First use and import are measured against statements: `import pulumi, pydantic` (the
baseline of `import nodepools`) and the same plus one pydantic model of one field defined
and built (the floor of first use: what any library whose arguments are pydantic models
pays before any model of its own).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

# `import nodepools` is measured against this.
BASELINE = "import pulumi, pydantic"

# First use is measured against this: pydantic's model machinery imported and one model of
# one field defined and built.
ONE_MODEL = """\
import pulumi, pydantic
from pydantic import BaseModel
class Args(BaseModel):
    replicas: int = 0
Args(replicas=1)
"""

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


def plan_records(capture: Any) -> list[dict[str, Any]]:
    """A plan's registrations as the floor replays them (JSON-serialisable)."""
    return [
        {
            "urn": r.urn,
            "type": r.type,
            "name": r.name,
            "custom": r.custom,
            "parent": r.parent,
            "inputs": r.inputs,
            "dependencies": list(r.dependencies),
            "options": dict(r.options),
            "outputs": capture.component_outputs.get(r.urn, {}) if not r.custom else {},
        }
        for r in capture.resources
    ]


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _sdk_class(token: str) -> tuple[str, Any]:
    """How a program makes a resource of type `token`: ("typed", its provider SDK class),
    ("crd", pulumi_kubernetes' class for the custom resources of a CRD) or ("none", None)
    for a type of no provider SDK; the class's module imported, as a program's imports
    would import it."""
    package, module_path, class_name = token.split(":")
    if package == "kubernetes":
        group, _, version = module_path.rpartition("/")
        module_name = _K8S_MODULES.get(group)
        if module_name is None:
            from pulumi_kubernetes.apiextensions import CustomResource

            return "crd", CustomResource
        module = importlib.import_module(f"pulumi_kubernetes.{module_name}.{version}")
        return "typed", getattr(module, class_name)
    if package not in ("aws", "oci"):
        return "none", None
    module = importlib.import_module(f"pulumi_{package}.{module_path.split('/')[0].lower()}")
    return "typed", getattr(module, class_name)


def _python_names(sdk_class: Any) -> dict[str, str]:
    """The SDK's Python name of each top-level input, by the engine's (camelCase) name."""
    from pulumi import _types

    module = importlib.import_module(sdk_class.__module__)
    args_class = getattr(module, f"{sdk_class.__name__}Args", None) or getattr(
        module, f"{sdk_class.__name__}InitArgs", None
    )
    if args_class is None:
        return {}
    return {
        pulumi: python
        for python, pulumi in _types.input_type_py_to_pulumi_names(args_class).items()
    }


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
            raise NotImplementedError(f"alias form {spec} is not replayed by the floor")
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


def floor_program(records: list[dict[str, Any]]) -> Callable[[], None]:
    """A Pulumi program that registers `records` again as a hand-written program would
    (see the module docstring)."""
    import pulumi

    class FloorCustom(pulumi.CustomResource):
        def __init__(self, t: str, name: str, props: dict, opts: Any) -> None:
            super().__init__(t, name, props, opts)

    class FloorComponent(pulumi.ComponentResource):
        def __init__(self, t: str, name: str, props: dict, opts: Any) -> None:
            super().__init__(t, name, props, opts)

    # By type token, filled by the first registration of each type: how it is made, its
    # class and the Python names of its inputs.
    classes: dict[str, tuple[str, Any, dict[str, str]]] = {}

    def register_custom(record: dict[str, Any], created: dict[str, Any]) -> pulumi.Resource:
        token = record["type"]
        found = classes.get(token)
        if found is None:
            kind, sdk_class = _sdk_class(token)
            names = _python_names(sdk_class) if kind == "typed" else {}
            found = classes[token] = (kind, sdk_class, names)
        kind, sdk_class, names = found
        inputs = dict(record["inputs"])
        if kind == "typed":
            kwargs = {names.get(key) or _snake(key): value for key, value in inputs.items()}
            return sdk_class(record["name"], opts=_options(record, created, typed=True), **kwargs)
        if kind == "crd":
            return sdk_class(
                record["name"],
                api_version=inputs.pop("apiVersion"),
                kind=inputs.pop("kind"),
                metadata=inputs.pop("metadata", None),
                opts=_options(record, created),
                **inputs,
            )
        return FloorCustom(token, record["name"], inputs, _options(record, created))

    records = _dependency_order(records)

    def program() -> None:
        created: dict[str, pulumi.Resource] = {}
        components: list[tuple[pulumi.ComponentResource, dict[str, Any]]] = []
        for record in records:
            if record["custom"]:
                resource = register_custom(record, created)
            else:
                opts = _options(record, created)
                resource = FloorComponent(
                    record["type"], record["name"], dict(record["inputs"]), opts
                )
                components.append((resource, record["outputs"]))
            created[record["urn"]] = resource
        for component, outputs in components:
            component.register_outputs(outputs)

    return program


def same_registration(resource: Any) -> tuple[Any, ...]:
    """What must match between a plan's registration and the floor's."""
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
