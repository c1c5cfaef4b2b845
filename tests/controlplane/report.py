"""What the control-plane tests made the real servers check, counted for the run's summary
(printed by tests/controlplane/conftest.py's pytest_terminal_summary)."""

from __future__ import annotations

from collections import Counter

# Keys, in the order they are printed.
ORDER = (
    "stacks applied",
    "programs applied (component programs, Kueue and Karpenter upstream examples)",
    "objects applied (dryRun=All, then for real, read back)",
    "Helm releases rendered by helm from the pinned charts",
    "rendered chart objects applied (CRDs first)",
    "rendered DaemonSet pods bound on served pools (DaemonSet controller + kube-scheduler)",
    "rendered DaemonSets kept off pools they do not serve",
    "server refusals checked",
    "pools (stand-in Nodes)",
    "probe pods bound by kube-scheduler",
    "probe pods refused without tolerations",
    "recipe pods bound",
    "ValidatingAdmissionPolicy denials checked",
    "Kueue controller: Jobs admitted / borrowing / held",
    "Kueue controller: PoolQuotas programs exercised",
    "Kueue controller: Jobs admitted (within quota or borrowing)",
    "Kueue controller: Jobs held over quota",
    "Kueue controller: borrowers preempted by a lender",
    "Karpenter (KWOK): NodeClaims launched from our NodePools",
    "Karpenter (KWOK): pods bound on the nodes it launched",
    "Karpenter (KWOK): pods without tolerations refused a launch",
    "Karpenter (KWOK): pods refused a launch by the pool's limits",
    "Karpenter (KWOK): upstream example NodePools launched",
    "Karpenter (KWOK): upstream example NodePools refused (not offered)",
)
COUNTS: Counter[str] = Counter()


def count(key: str, n: int = 1) -> None:
    assert key in ORDER, key
    COUNTS[key] += n


def summary_lines() -> list[str]:
    return [f"{COUNTS[key]:6d}  {key}" for key in ORDER if key in COUNTS]
