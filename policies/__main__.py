"""Serves the nodepools-guardrails pack to the Pulumi engine (`--policy-pack policies`).

The CLI starts this file through `python -m pulumi.policy <engine> .` with the policy pack
directory as working directory, in the virtualenv `PulumiPolicy.yaml` names. The rules are
the installed `nodepools.policies` package (`make venv` installs this checkout, editable),
so the pack and the components it checks read one catalog and one set of label rules.
"""

from nodepools.policies.pack import PACK_ENFORCEMENT_LEVEL, PACK_NAME, POLICIES
from pulumi_policy import PolicyPack

PolicyPack(name=PACK_NAME, policies=POLICIES, enforcement_level=PACK_ENFORCEMENT_LEVEL)
