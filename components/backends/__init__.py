"""One backend per cloud: a resolved spec in, provider resources out.

Backends are imported on first use so that `import components` never loads a cloud SDK
and a user of one cloud never pays for another.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

# cluster kind -> module exposing `build_pool(name, pool, parent) -> BuiltPool`
BACKEND_MODULES: dict[str, str] = {
    "eks": "components.backends.eks",
    "oke": "components.backends.oke",
    "rosa": "components.backends.rosa",
    # Karpenter pools render custom resources rather than build from a ResolvedPool; its
    # `build_pool` takes a ResolvedKarpenterPool.
    "karpenter": "components.backends.karpenter",
}


@dataclass(frozen=True)
class BuiltPool:
    """What a backend made: the pool's cloud id and its main resource."""

    pool_id: Any  # pulumi.Output[str]
    resource: Any  # the node group / node pool / machine pool resource


def backend_for(kind: str) -> ModuleType:
    try:
        module_name = BACKEND_MODULES[kind]
    except KeyError:
        raise ValueError(
            f"no backend for cluster kind {kind!r}; known kinds: {sorted(BACKEND_MODULES)}"
        ) from None
    return importlib.import_module(module_name)
