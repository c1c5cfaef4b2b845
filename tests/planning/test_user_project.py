"""`nodepools plan` on a user's own project: its Pulumi.yaml, stack config, overrides, unknowns."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from nodepools.planning import plan_stack
from nodepools.planning.cli import main

PROGRAM = textwrap.dedent(
    """
    import json, pathlib
    import pulumi
    from pulumi.runtime.config import is_config_secret
    from nodepools import GpuSpotPool

    config = pulumi.Config()
    network = pulumi.StackReference(config.require("networkStack"))
    GpuSpotPool(
        "gpu",
        {
            "cluster": {
                "kind": "eks",
                "cluster_name": config.require("clusterName"),
                "node_role_arn": network.get_output("nodeRoleArn"),
                "subnet_ids": ["subnet-a"],
            },
            "instance_type": config.require("instanceType"),
        },
    )
    # What the program saw, for the test to read.
    seen = {
        "project": pulumi.get_project(),
        "token": config.get("token"),
        "token_secret": is_config_secret("my-gpus:token"),
        "region": pulumi.Config("aws").get("region"),
    }
    pathlib.Path(config.require("seenFile")).write_text(json.dumps(seen))
    """
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "Pulumi.yaml").write_text(
        textwrap.dedent(
            """
            name: my-gpus
            runtime: python
            main: infra/
            config:
              clusterName: ml-default
              instanceType:
                type: string
                default: g5.xlarge
              aws:region: us-east-1
            """
        )
    )
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "__main__.py").write_text(PROGRAM)
    (tmp_path / "Pulumi.dev.yaml").write_text(
        textwrap.dedent(
            f"""
            config:
              my-gpus:instanceType: g5.2xlarge
              my-gpus:networkStack: org/network/dev
              my-gpus:seenFile: {tmp_path / "seen.json"}
              my-gpus:token:
                secure: AAABAKtD7zG8cUtOnMnlwB0dEwcFcmRSYLx3pi1x
            """
        )
    )
    return tmp_path


def seen(project: Path) -> dict:
    return json.loads((project / "seen.json").read_text())


def test_the_project_its_defaults_the_stack_file_and_overrides_are_read(project):
    result = plan_stack(
        "dev", project_dir=project, config=["clusterName=ml-prod"], secrets=["token=s3cr3t"]
    )
    assert result.error is None, result.error
    saw = seen(project)
    assert saw["project"] == "my-gpus"  # not the library's name
    assert saw["region"] == "us-east-1"  # a namespaced default of Pulumi.yaml
    assert saw["token"] == "s3cr3t" and saw["token_secret"] is True
    urns = [r.urn for r in result.capture.resources]
    assert all("::my-gpus::" in urn for urn in urns)
    group = next(r for r in result.capture.resources if r.type == "aws:eks/nodeGroup:NodeGroup")
    assert group.inputs["instanceTypes"] == ["g5.2xlarge"]  # the stack file over the default
    assert group.inputs["clusterName"] == "ml-prod"  # the override over the default
    assert "s3cr3t" not in result.render()


def test_an_encrypted_value_needs_its_plaintext_offline(project):
    stack_file = re.escape(str(project / "Pulumi.dev.yaml"))
    with pytest.raises(
        ValueError, match=rf"^{stack_file}: my-gpus:token .* --secret token=\.\.\.$"
    ):
        plan_stack("dev", project_dir=project)


def test_values_from_another_stack_are_known_after_apply_never_none(project):
    result = plan_stack("dev", project_dir=project, secrets=["token=x"])
    text = result.render()
    assert "Known after apply" in text
    assert "aws:eks/nodeGroup:NodeGroup  gpu-node-group  nodeRoleArn = (known after apply)" in text
    assert "None" not in text
    # OK as far as it could check, and it says what it could not.
    assert text.rstrip().endswith(
        'Plan OK, but 1 input is known only after apply and not checked here (see "Known after apply")'
    )


def test_the_cli_takes_the_project_folder_and_overrides(project, capsys):
    code = main(["plan", "--stack", "dev", "-C", str(project), "-c", "instanceType=g6.xlarge", "--secret", "token=x"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Plan of stack 'dev'" in out
    assert "g6.xlarge" in out


def test_a_bad_override_is_a_clear_error(project, capsys):
    code = main(["plan", "--stack", "dev", "-C", str(project), "-c", "instanceType"])
    assert code == 2
    assert capsys.readouterr().err == "error: --config 'instanceType': expected key=value\n"
