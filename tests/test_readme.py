"""The README is the front page: what nodepools is, the two commands, one example, links.

Everything else it used to say lives in docs/ now, where tests/test_docs.py runs every block.
"""

from __future__ import annotations

import re

from nodepools.offline import run

from tests.doc_blocks import ROOT, blocks, load_hooks

README = ROOT / "README.md"
TEXT = README.read_text()
BLOCKS = blocks(README)


def test_readme_is_a_front_page():
    assert len(TEXT.splitlines()) <= 250
    assert "make plan" in TEXT and "make test" in TEXT
    assert [b.lang for b in BLOCKS].count("python") == 1, "one example"


def test_readme_example_runs_offline():
    (example,) = [b for b in BLOCKS if b.lang == "python"]
    capture = run(lambda: exec(compile(example.code, "README.md", "exec"), {}))
    assert {r.name for r in capture.components()} == {"ml-training"}
    group = capture.get("aws:eks/nodeGroup:NodeGroup", "ml-training-node-group")
    assert group.inputs["capacityType"] == "SPOT"


def test_readme_links_lead_to_pages_that_exist_or_are_on_their_way():
    hooks = load_hooks()
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", TEXT)
    assert len(links) >= 20
    broken = [
        link
        for link in links
        if not (ROOT / link).exists()
        and not (link.startswith("docs/") and link.removeprefix("docs/") in hooks.PENDING)
    ]
    assert broken == []


def test_readme_shows_the_error_as_the_library_writes_it():
    """The error shown is the one docs/concepts/offline-and-up.md provokes (and asserts)."""
    from nodepools import MachinePool, SpecError

    eks = {
        "kind": "eks",
        "cluster_name": "ml",
        "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
    }
    bad = {
        "cluster": {**eks, "subnet_ids": ["subnet-a"]},
        "instance_type": "m5.xlarge",
        "autoscaling": {"min_replicas": 5, "max_replicas": 3},
        "taints": ["nvidia.com/gpu=true:NoSchedul"],
    }
    try:
        MachinePool.preflight("bad", bad)
    except SpecError as error:
        shown = next(b.code for b in BLOCKS if b.lang == "text" and "invalid" in b.code)
        assert str(error).strip() == shown.strip()
    else:
        raise AssertionError("the README's error is raised")
