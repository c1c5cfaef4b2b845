"""The admission pipeline of one kind, in the API server's order.

For a create (``old`` is None) the API server, and so `KindValidator.validate`:

1. drops ``status`` when the CRD has a status subresource;
2. prunes unknown fields (reported here, see pruning.py);
3. drops non-nullable nulls without a default, then applies schema defaults;
4. validates ``metadata`` (ObjectMeta rules), the structural schema and the
   ``x-kubernetes-list-type`` invariants, and the scale subresource's replicas;
5. evaluates the CEL rules, unless step 4 found a type, required, enum, too-long or
   too-many error (then it says that some rules were not checked, as the server does);
6. calls the admission webhook (Kueue's checks), only if nothing above rejected the
   object, since a rejected request never reaches a validating webhook.

For an update (``old`` given), transition rules are evaluated against ``old``,
processed the same way. CRD validation ratcheting (tolerating errors that ``old``
already had) is not modelled: every error of the new object is reported.

A `KindValidator` is built once per kind and process, on first use: facts loaded,
schema compiled, every CEL rule compiled.
"""

from __future__ import annotations

import threading
from typing import Any

from nodepools.json_values import is_dict
from nodepools.validation import catalog, cel, defaults, metadata, pruning, structural, webhooks
from nodepools.validation.schema import MISSING, SchemaNode, compile_schema
from nodepools.validation.violations import CEL_SKIPPED_MESSAGE, Collector, Violation

MAX_INT32 = 2**31 - 1


class KindValidator:
    def __init__(self, api_version: str, kind: str):
        facts = catalog.load_facts(api_version, kind)
        self.api_version = api_version
        self.kind = kind
        self.namespaced = facts["scope"] == "Namespaced"
        self.drops_status = bool(facts["subresources"]["status"])
        scale: dict[str, Any] = facts["subresources"].get("scale") or {}
        self.replicas_path: tuple[str, ...] = (
            tuple(scale.get("specReplicasPath", "").lstrip(".").split("."))
            if scale.get("specReplicasPath")
            else ()
        )
        self.root: SchemaNode = compile_schema(facts["schema"], kind)
        self.rule_count = cel.compile_schema_rules(self.root, kind)
        self.webhook = webhooks.WEBHOOKS.get((api_version, kind))

    def normalize(
        self, manifest: dict[str, Any], out: Collector | None, owned: bool = False
    ) -> dict[str, Any]:
        """A copy of ``manifest`` as the API server would store it before validation.

        With ``out``, unknown fields are pruned and reported; without, they are kept
        (`apply_defaults` must not drop what it does not understand). ``owned``: the
        caller's own fresh copy, normalized in place (see `validate_manifest`).
        """
        obj = manifest if owned else defaults.copy_json(manifest)
        if self.drops_status:
            obj.pop("status", None)
        if out is not None:
            metadata.prune_unknown_metadata(obj.get("metadata"), out)
            for name in list(obj):
                if name == "metadata":
                    continue
                sub = self.root.properties.get(name) if self.root.properties else None
                if sub is None:
                    del obj[name]
                    out.unknown_field(str(name))
                elif isinstance(obj[name], (dict, list)):
                    pruning.prune_unknown(sub, obj[name], name, out)
        # Root metadata is ObjectMeta, declared as a bare object: neither pass touches it.
        defaults.prune_nulls(self.root, obj)
        defaults.apply_defaults(self.root, obj)
        return obj

    def validate(
        self, manifest: dict[str, Any], old: dict[str, Any] | None, owned: bool = False
    ) -> list[Violation]:
        name = _name_of(manifest)
        out = Collector(self.kind, name)
        obj = self.normalize(manifest, out, owned)
        unknown_reports = len(out.violations)

        metadata.validate_metadata(obj.get("metadata"), self.namespaced, out)
        for field in self.root.required:
            if field not in obj:
                out.required(field)
        for field, sub in (self.root.properties or {}).items():
            if field == "metadata" or field not in obj:
                continue
            checked = structural.validate(sub, obj[field], field, out)
            if checked is not obj[field]:
                obj[field] = checked
        self._check_replicas(obj, out)

        if self.rule_count:
            if out.blocking:
                out.add("cel-skipped", "", CEL_SKIPPED_MESSAGE)
            else:
                old_obj = self.normalize(old, None) if is_dict(old) else None
                for field, sub in self.root.rule_properties:
                    if field in obj:
                        prior = old_obj.get(field, MISSING) if old_obj is not None else MISSING
                        cel.evaluate(sub, obj[field], prior, field, out)

        rejected = len(out.violations) > unknown_reports
        if self.webhook is not None and not rejected:
            old_obj = self.normalize(old, None) if is_dict(old) else None
            self.webhook(obj, old_obj, out)
        return out.violations

    def _check_replicas(self, obj: dict[str, Any], out: Collector) -> None:
        # The scale subresource caps spec replicas at int32 (customresource validator,
        # ValidateScaleSpec); the schema only says int64 >= 0.
        if not self.replicas_path:
            return
        value: Any = obj
        for part in self.replicas_path:
            if not is_dict(value) or part not in value:
                return
            value = value[part]
        if isinstance(value, int) and not isinstance(value, bool) and value > MAX_INT32:
            out.invalid(
                ".".join(self.replicas_path), value, f"should be less than or equal to {MAX_INT32}"
            )


def _name_of(manifest: dict[str, Any]) -> str:
    meta = manifest.get("metadata")
    if is_dict(meta):
        name = meta.get("name") or meta.get("generateName")
        if isinstance(name, str):
            return name
    return ""


_VALIDATORS: dict[tuple[str, str], KindValidator] = {}
_LOCK = threading.Lock()


def validator_for(api_version: Any, kind: Any) -> KindValidator | None:
    """The compiled validator of a known kind (built once per process), else None."""
    if not catalog.is_known_kind(api_version, kind):
        return None
    identity = (api_version, kind)
    found = _VALIDATORS.get(identity)
    if found is None:
        with _LOCK:
            found = _VALIDATORS.get(identity)
            if found is None:
                found = _VALIDATORS[identity] = KindValidator(api_version, kind)
    return found
