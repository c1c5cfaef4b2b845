"""The module path under which stacks written before 0.2 pickled `OsmoConfigProvider`
(now `nodepools.backends.governance.osmo`): the engine unpickles a dynamic provider by
module path, so this name must stay importable for their state.
"""

from nodepools.backends.governance.osmo import OsmoConfigProvider

__all__ = ["OsmoConfigProvider"]
