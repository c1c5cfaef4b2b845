"""Which label, requirement and tag keys Karpenter refuses, read from its packaged CRD facts.

The restrictions are not restated here: they are parsed out of the upstream CEL rules
(`x-kubernetes-validations`) that `components/validation/data/` carries for the NodePool
and EC2NodeClass CRDs (Karpenter v1.14.1), so the allowed well-known keys follow the CRDs
when the facts are regenerated. Three rule shapes occur and are understood:

- a restricted domain with allowed keys:
  ``self.all(x, x in ["karpenter.sh/capacity-type", ...] || !x.find("^([^/]+)").endsWith("karpenter.sh"))``
- one restricted key: ``self.all(x, x != "kubernetes.io/hostname")`` (or ``self != ...``)
- a restricted prefix: ``self.all(k, !k.startsWith('kubernetes.io/cluster') )``

A rule of any other shape is an error at first use, not silently ignored: the tests load
every rule, so a regenerated CRD with a new shape fails there first.

The facts are read on first use (not at import) to keep `import nodepools` cheap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

_NODE_POOL = ("karpenter.sh/v1", "NodePool")
_NODE_CLASS = ("karpenter.k8s.aws/v1", "EC2NodeClass")

# Schema locations of the rules, as property paths from the root of each CRD's schema.
_LABELS_PATH = ("spec", "template", "metadata", "labels")
_REQUIREMENT_KEY_PATH = ("spec", "template", "spec", "requirements", "[]", "key")
_TAGS_PATH = ("spec", "tags")

_STRING = r"""(?:"(?P<{name}_dq>[^"]*)"|'(?P<{name}_sq>[^']*)')"""
_DOMAIN = re.compile(
    r"in \[(?P<allowed>[^\]]*)\] \|\| !\w+\.find\(\"\^\(\[\^/\]\+\)\"\)\.endsWith\("
    + _STRING.format(name="domain")
    + r"\)"
)
_EXACT = re.compile(r"^(?:self\.all\(\w+, ?)?(?:self|\w+) ?!= ?" + _STRING.format(name="key"))
_PREFIX = re.compile(r"!\w+\.startsWith\(" + _STRING.format(name="prefix") + r"\)")
_LIST_ITEM = re.compile(r"\"([^\"]*)\"|'([^']*)'")


@dataclass(frozen=True)
class KeyRule:
    """One upstream rule about map keys (label keys, requirement keys, tag keys)."""

    message: str  # the CRD's own message, quoted in our errors
    rule: str
    exact: str | None = None
    prefix: str | None = None
    domain: str | None = None
    allowed: frozenset[str] = frozenset()

    def rejects(self, key: str) -> bool:
        if self.exact is not None:
            return key == self.exact
        if self.prefix is not None:
            return key.startswith(self.prefix)
        assert self.domain is not None
        # CEL: x.find("^([^/]+)") is everything before the first '/' (the whole key if none).
        return key not in self.allowed and key.split("/", 1)[0].endswith(self.domain)


def _string(match: re.Match[str], name: str) -> str:
    value = match.group(f"{name}_dq")
    return value if value is not None else match.group(f"{name}_sq")


def parse_key_rule(rule: str, message: str) -> KeyRule:
    """Understand one CEL key rule, or raise ValueError naming it."""
    if found := _DOMAIN.search(rule):
        allowed = frozenset(a or b for a, b in _LIST_ITEM.findall(found.group("allowed")))
        return KeyRule(message, rule, domain=_string(found, "domain"), allowed=allowed)
    if found := _PREFIX.search(rule):
        return KeyRule(message, rule, prefix=_string(found, "prefix"))
    if found := _EXACT.search(rule):
        return KeyRule(message, rule, exact=_string(found, "key"))
    raise ValueError(f"unrecognised Karpenter key rule {rule!r} ({message!r})")


def _node(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    for part in path:
        schema = schema["items"] if part == "[]" else schema["properties"][part]
    return schema


@cache
def _rules(kind: tuple[str, str], path: tuple[str, ...]) -> tuple[KeyRule, ...]:
    from nodepools.validation.catalog import load_facts

    node = _node(load_facts(*kind)["schema"], path)
    return tuple(
        parse_key_rule(entry["rule"], entry["message"])
        for entry in node.get("x-kubernetes-validations", ())
    )


def label_rules() -> tuple[KeyRule, ...]:
    """The NodePool CRD's rules on `spec.template.metadata.labels` keys."""
    return _rules(_NODE_POOL, _LABELS_PATH)


def requirement_key_rules() -> tuple[KeyRule, ...]:
    """The NodePool CRD's rules on `spec.template.spec.requirements[].key`."""
    return _rules(_NODE_POOL, _REQUIREMENT_KEY_PATH)


def tag_rules() -> tuple[KeyRule, ...]:
    """The EC2NodeClass CRD's rules on `spec.tags` keys."""
    return _rules(_NODE_CLASS, _TAGS_PATH)


def allowed_keys(domain: str) -> frozenset[str]:
    """The well-known label keys of a restricted domain (e.g. `karpenter.k8s.aws`) that a
    NodePool may use, minus any key another rule restricts on its own."""
    keys: set[str] = set()
    for rule in label_rules():
        if rule.domain == domain:
            keys |= rule.allowed
    return frozenset(k for k in keys if not any(r.rejects(k) for r in label_rules()))


# Shown as examples of allowed well-known keys, the most useful first.
_EXAMPLES = ("karpenter.k8s.aws/instance-family", "karpenter.sh/capacity-type")


def _first_rejecting(rules: tuple[KeyRule, ...], key: str) -> KeyRule | None:
    return next((rule for rule in rules if rule.rejects(key)), None)


def restricted_label_problem(key: str) -> str | None:
    """Why Karpenter would refuse `key` as a node label (or requirement key), or None."""
    rule = _first_rejecting(label_rules(), key) or _first_rejecting(requirement_key_rules(), key)
    if rule is None:
        return None
    if rule.domain is not None:
        allowed = allowed_keys(rule.domain)
        example = next((k for k in _EXAMPLES if k in allowed), min(allowed, default="none"))
        why = (
            f"the CRD allows only Karpenter's {len(allowed)} well-known keys of that domain "
            f"(such as {example}), and Karpenter sets those itself from the NodePool's "
            "requirements and the instance it launches, so express the constraint with "
            "`instance_families`, `capacity_types`, ... instead"
        )
    elif key == "karpenter.sh/nodepool":
        why = "Karpenter sets it to the NodePool's name"
    else:
        why = "the kubelet sets it on each node"
    return f"label {key!r} is restricted by Karpenter ({rule.message}): {why}"


def restricted_tag_problem(key: str) -> str | None:
    """Why the EC2NodeClass CRD would refuse `key` as an instance tag, or None."""
    rule = _first_rejecting(tag_rules(), key)
    if rule is None:
        return None
    if rule.exact == "":
        return f"tag keys can't be empty ({rule.message})"
    return f"tag {key!r} is reserved ({rule.message}): Karpenter and EKS set it themselves"
