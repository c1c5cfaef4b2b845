"""Kueue objects -> a PoolQuotas entry (the organisation read back, `kueue_quotas`), or a
KueueQueues entry (every object as written). `--as auto` (the default) uses PoolQuotas when a
plan of it renders the objects exactly, else KueueQueues, and says why.
"""

from __future__ import annotations

from typing import Any

from nodepools.importers import kueue_quotas
from nodepools.importers.documents import Document
from nodepools.importers.kueue_quotas import ENTRY, key_of, kueue_queues_entry
from nodepools.importers.model import Imported
from nodepools.offline import Capture
from nodepools.specs.governance.kueue import KINDS as QUEUE_FIELDS

COMPONENTS = ("auto", "pool-quotas", "kueue-queues")
KINDS = tuple(QUEUE_FIELDS.values())


def kueue_queues(documents: list[Document]) -> Imported:
    """One KueueQueues entry holding every object as written."""
    imported = Imported("kueue", {}, {}, default_why="KueueQueues writes the object this way")
    docs = [d.data for d in documents]
    for doc in docs:
        imported.upstream[key_of(doc)] = doc
    imported.origins[ENTRY] = sorted(imported.upstream)
    imported.config["nodepools:governance"] = [kueue_queues_entry(ENTRY, docs)]
    return imported


def import_documents(documents: list[Document], component: str) -> Imported:
    if component == "kueue-queues":
        return kueue_queues(documents)
    return kueue_quotas.pool_quotas([d.data for d in documents])


def rendered(capture: Capture) -> dict[str, dict[str, Any]]:
    """Every Kueue object (and Namespace) the plan registered, by `Kind[/namespace]/name`."""
    found: dict[str, dict[str, Any]] = {}
    for resource in capture.resources:
        manifest = resource.inputs
        api = manifest.get("apiVersion")
        if resource.custom and isinstance(api, str) and api.startswith("kueue.x-k8s.io/"):
            found[key_of(manifest)] = manifest
    return found
