"""Each extra alone, installed for real from the built wheel into a virtualenv of its own:
what it plans, and what it refuses with the `pip install` line that fixes it (issue 33).

One xdist group: the virtualenvs are made once (minutes cold, kept outside the clone; see
conftest.py) and every test here reuses them.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.extras.conftest import REPO

pytestmark = pytest.mark.xdist_group("extras")

AWS_LINE = "pip install 'nodepools[aws]'"
OCI_LINE = "pip install 'nodepools[oci]'"

# Run by the virtualenv's interpreter, outside the checkout: plans each stack named and says
# which optional modules it could import.
DRIVER = """
import importlib.util, json, sys
from pathlib import Path
import nodepools
from nodepools.planning import plan_stack
assert "site-packages" in nodepools.__file__, nodepools.__file__
found = {}
for stack in sys.argv[2:]:
    result = plan_stack(stack, stacks_dir=Path(sys.argv[1]))
    found[stack] = {"ok": result.ok, "text": result.render()}
modules = ("pulumi_aws", "pulumi_oci", "kubernetes_validate")
print(json.dumps({"plans": found,
                  "modules": {m: importlib.util.find_spec(m) is not None for m in modules}}))
"""


def plans(env_dir: Path, tmp_path: Path, *stacks: str) -> dict:
    result = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", DRIVER, str(REPO / "stacks"), *stacks],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


def planned(found: dict, stack: str) -> None:
    plan = found["plans"][stack]
    assert plan["ok"], plan["text"][-2000:]


def refused(found: dict, stack: str, line: str) -> None:
    plan = found["plans"][stack]
    assert not plan["ok"]
    assert "nothing would be created" in plan["text"], plan["text"][-2000:]
    [why] = [text for text in plan["text"].splitlines() if "MissingExtra" in text]
    assert why.endswith(f"which is not installed: {line}"), why


def test_the_core_alone_plans_karpenter_kueue_and_osmo_and_refuses_eks_and_oke(venvs, tmp_path):
    found = plans(
        venvs["core"],
        tmp_path,
        "eks-karpenter-llm",
        "org-quotas",
        "osmo-platforms",
        "eks-training",
        "oke-shared-mi300x",
    )
    assert found["modules"] == {
        "pulumi_aws": False,
        "pulumi_oci": False,
        "kubernetes_validate": False,
    }
    for stack in ("eks-karpenter-llm", "org-quotas", "osmo-platforms"):
        planned(found, stack)
    refused(found, "eks-training", AWS_LINE)
    refused(found, "oke-shared-mi300x", OCI_LINE)


def test_the_aws_extra_plans_the_eks_stacks_and_refuses_the_oke_ones(venvs, tmp_path):
    found = plans(venvs["aws"], tmp_path, "eks-training", "oke-shared-mi300x", "dev")
    assert found["modules"] == {
        "pulumi_aws": True,
        "pulumi_oci": False,
        "kubernetes_validate": False,
    }
    planned(found, "eks-training")
    refused(found, "oke-shared-mi300x", OCI_LINE)
    refused(found, "dev", OCI_LINE)  # dev has pools on both clouds


def test_the_oci_extra_plans_the_oke_stacks_and_refuses_the_eks_ones(venvs, tmp_path):
    found = plans(venvs["oci"], tmp_path, "oke-shared-mi300x", "eks-training")
    assert found["modules"] == {
        "pulumi_aws": False,
        "pulumi_oci": True,
        "kubernetes_validate": False,
    }
    planned(found, "oke-shared-mi300x")
    refused(found, "eks-training", AWS_LINE)


def test_the_installed_command_says_its_version(venvs):
    result = subprocess.run(
        [str(venvs["core"] / "bin" / "nodepools"), "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    from importlib.metadata import version

    assert (result.returncode, result.stdout) == (0, f"nodepools {version('nodepools')}\n")
