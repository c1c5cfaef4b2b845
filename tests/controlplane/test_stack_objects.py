"""Every example stack's Kubernetes objects, applied to the real API server and read back.

Server-side apply with `dryRun=All` first (admission, schema, CEL rules, defaulting: nothing
stored), then for real, in dependency order (namespaces, then cluster-scoped objects others
name, then the rest). A rejection fails quoting the server. Reading back proves nothing we send
is pruned: a field the server's schema does not know is silently dropped, never an error.

A Helm `Release` (AcceleratorStack) is not an API object: the pinned chart, rendered by helm
with the values the stack registers, is applied in tests/controlplane/test_helm_charts.py.
The stacks are found by glob (stacks/Pulumi.*.yaml): a new stack is covered when it lands.
"""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.offline import Capture

from tests.controlplane.objects import KubeObject, apply, kube_objects, read_back, server_message
from tests.controlplane.report import count
from tests.engines.mocks import STACKS, example_stacks, run_on, stack_config

# Quantities come back canonical ("1000m" -> "1"): compared elsewhere, by the scheduler.
_QUANTITY_KEYS = {
    "requests",
    "limits",
    "capacity",
    "allocatable",
    "nominalQuota",
    "borrowingLimit",
    "lendingLimit",
}


def lost_fields(sent: Any, stored: Any, path: str = "") -> list[str]:
    """Paths of what was sent but is not stored as sent."""
    if isinstance(sent, dict):
        if not isinstance(stored, dict):
            return [path or "."]
        lost = []
        for key, value in sent.items():
            where = f"{path}.{key}"
            if key not in stored:
                # omitempty: the server drops an empty value (a toleration's `value: ""`),
                # which means the same as none.
                if value not in ("", None, [], {}):
                    lost.append(where)
            elif key in _QUANTITY_KEYS:
                lost += (
                    [f"{where}.{k}" for k in (value or {}) if k not in (stored[key] or {})]
                    if isinstance(value, dict)
                    else []
                )
            else:
                lost += lost_fields(value, stored[key], where)
        return lost
    if isinstance(sent, list):
        if not isinstance(stored, list) or len(stored) != len(sent):
            return [path]
        return [
            p
            for i, (a, b) in enumerate(zip(sent, stored, strict=True))
            for p in lost_fields(a, b, f"{path}[{i}]")
        ]
    return [] if sent == stored else [f"{path} (sent {sent!r}, stored {stored!r})"]


def stack_capture(stack: str) -> Capture:
    return run_on("offline", STACKS, stack=stack, config=stack_config(stack))


def stack_objects(stack: str) -> tuple[list[KubeObject], dict[str, str]]:
    return kube_objects(stack_capture(stack), stack)


def apply_all(dynamic: Any, objects: list[KubeObject]) -> None:
    """dryRun=All then for real, each in turn, then read back; fails quoting the server."""
    from kubernetes.client.exceptions import ApiException

    for obj in objects:
        # Each object dry-run first, then for real: a later object's dry run needs the
        # earlier ones (its namespace, the ResourceFlavor it names) to exist.
        for dry_run in (True, False):
            try:
                apply(dynamic, obj, dry_run=dry_run)
            except ApiException as error:
                phase = "dryRun=All" if dry_run else "apply"
                pytest.fail(f"{phase} rejected {obj.label}: {server_message(error)}", pytrace=False)
    count("objects applied (dryRun=All, then for real, read back)", len(objects))
    for obj in objects:
        stored = read_back(dynamic, obj)
        sent = {
            k: v
            for k, v in obj.manifest.items()
            if k in ("spec", "data", "rules", "roleRef", "subjects", "value")
        }
        lost = lost_fields(sent, stored)
        assert not lost, f"{obj.label}: the server did not keep {lost}"


@pytest.mark.parametrize("stack", example_stacks())
def test_the_stacks_objects_are_accepted_by_the_api_server(
    stack: str, dynamic_client: Any, installed_crds: list[str], record_property: Any
) -> None:
    capture = stack_capture(stack)
    objects, skipped = kube_objects(capture, stack)
    apply_all(dynamic_client, objects)
    count("stacks applied")
    record_property("applied", len(objects))
    record_property("skipped", skipped)


def test_every_stack_file_is_covered() -> None:
    # No list to keep up to date: what the glob finds is what the tests above parametrize.
    files = sorted(p.name for p in STACKS.glob("Pulumi.*.yaml"))
    assert [f"Pulumi.{s}.yaml" for s in example_stacks()] == files
