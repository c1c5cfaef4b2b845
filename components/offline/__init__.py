"""The offline engine: run a Pulumi program under the SDK's mock monitor (`run`) and capture
every registration, with deterministic ids and the computed outputs programs read back
(`OfflineMocks`). `python -m nodepools plan` and the tests run stacks with it.

May import: `pulumi` and `nodepools.specs.core` (how a path is written); nothing else of
the library: it runs programs without knowing what they build. Imported by
`nodepools.planning` and the tests.
"""

from nodepools.offline.engine import Capture, CapturedResource, ProgramError, run
from nodepools.offline.mocks import COMPUTED_OUTPUTS, OfflineMocks, stable_id

__all__ = [
    "COMPUTED_OUTPUTS",
    "Capture",
    "CapturedResource",
    "OfflineMocks",
    "ProgramError",
    "run",
    "stable_id",
]
