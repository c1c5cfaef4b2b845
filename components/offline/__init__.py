"""The offline engine: run Pulumi programs under the mock monitor and capture everything."""

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
