"""Schema facts of the upstream kinds that only the tests create, into tests/controlplane/data/.

`nodepools doctor` reads two kinds the library never writes, Karpenter's NodeClaim and
Kueue's Workload, and the status of one it does, Karpenter's NodePool. The control-plane tests stage them on the loopback API server through
CRDs rebuilt from these facts (as tests/controlplane/crds.py does for the kinds in
components/validation/data), so a staged object with a wrong field is refused as the real
API server would refuse it. The facts are the same compact form scripts/extract_crd_facts.py
writes (storage version, schema without descriptions), status schema included: the tests
write the status these kinds' controllers would; they are test data, not package data.

Sources (not in ../shared/crds), at the releases pinned in scripts/cluster_tools.versions:
- kubernetes-sigs/karpenter v1.14.1 (commit 6e7eab7a0f485d7225eb98995fad9b66c79b322b),
  pkg/apis/crds/karpenter.sh_nodeclaims.yaml
- ../shared/crds/karpenter-v1.14.1/karpenter.sh_nodepools.yaml (the same release's NodePool)
- kubernetes-sigs/kueue v0.19.2 (commit 8eab68778fc1b52affe165fdf5af29d1e9b4f3cb),
  config/components/crd/bases/kueue.x-k8s.io_workloads.yaml

Usage (from the repository root), each file in a folder named after its release::

    git -C karpenter show v1.14.1:pkg/apis/crds/karpenter.sh_nodeclaims.yaml \
        > /tmp/karpenter-v1.14.1/karpenter.sh_nodeclaims.yaml
    git -C kueue show v0.19.2:config/components/crd/bases/kueue.x-k8s.io_workloads.yaml \
        > /tmp/kueue-v0.19.2/kueue.x-k8s.io_workloads.yaml
    python scripts/extract_test_crd_facts.py /tmp/karpenter-v1.14.1/karpenter.sh_nodeclaims.yaml \
        /tmp/kueue-v0.19.2/kueue.x-k8s.io_workloads.yaml \
        ../shared/crds/karpenter-v1.14.1/karpenter.sh_nodepools.yaml
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from extract_crd_facts import facts_for_crd, render

REPO = Path(__file__).resolve().parent.parent
TEST_OUT = REPO / "tests" / "controlplane" / "data"
TEST_KINDS = {
    ("karpenter.sh", "NodeClaim"),
    ("kueue.x-k8s.io", "Workload"),
    # Packaged without its status (components/validation/data); a test writes it.
    ("karpenter.sh", "NodePool"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crds", nargs="+", type=Path, help="the upstream CRD YAML files")
    parser.add_argument("--out", type=Path, default=TEST_OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.crds:
        crd = yaml.safe_load(path.read_text(encoding="utf-8"))
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        if (group, kind) not in TEST_KINDS:
            raise SystemExit(f"{path}: {group}/{kind} is not one of {sorted(TEST_KINDS)}")
        release = path.parent.name
        facts = facts_for_crd(crd, f"{release}/{path.name}", release, keep_status=True)
        facts["source"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        target = args.out / f"{group}_{facts['plural']}.json"
        target.write_text(render(facts), encoding="utf-8")
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
