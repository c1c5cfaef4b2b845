"""Serves the nodepools-guardrails pack to the Pulumi engine (`--policy-pack policies`).

The CLI starts this file through `python -m pulumi.policy <engine> .` with the policy pack
directory as working directory and first import path. The rules live in the `policies`
package of this project, so the project root goes on the import path too: the pack then runs
the rules next to it even when the virtualenv holds another checkout (or none) of the project.
"""

import sys
from pathlib import Path

_PROJECT_ROOT = str(Path(__file__).resolve().parent.parent)
if _PROJECT_ROOT not in sys.path:
    sys.path.insert(0, _PROJECT_ROOT)

from pulumi_policy import PolicyPack  # noqa: E402

from policies.pack import PACK_ENFORCEMENT_LEVEL, PACK_NAME, POLICIES  # noqa: E402

PolicyPack(name=PACK_NAME, policies=POLICIES, enforcement_level=PACK_ENFORCEMENT_LEVEL)
