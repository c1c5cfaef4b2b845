"""Stack and project files the CLI reads: every malformed or silently ignored piece of
configuration is an error (exit 2) naming the file, the line and what is wrong."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
import yaml
from nodepools.fleet.deploy import validate_fleet
from nodepools.planning.cli import main
from nodepools.specs import SpecError

from tests.conftest import EKS, OKE

ROOT = Path(__file__).resolve().parent.parent.parent


def _stacks(tmp_path: Path, text: str, stack: str = "t") -> Path:
    shutil.copy(ROOT / "stacks" / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / f"Pulumi.{stack}.yaml").write_text(textwrap.dedent(text))
    return tmp_path


def _plan(stacks: Path, capsys, stack: str = "t", *more: str) -> tuple[int, str, str]:
    code = main(["plan", "--stack", stack, "--stacks-dir", str(stacks), *more])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("config: {a: [}\n", ":1:14: not valid YAML: expected the node content, but found '}'"),
        (
            "config:\n\tnodepools:pools: []\n",
            ":2:1: not valid YAML: found character '\\t' that cannot start any token "
            "(YAML indents with spaces, never tabs)",
        ),
        ("- a\n- b\n", ":1: a stack file is a mapping with a `config:` mapping (got a list)"),
        ("config: [1, 2]\n", ":1: `config` must be a mapping of key to value (got a list: [1, 2])"),
        (
            "nodepools:pools: []\n",
            ":1: unknown stack file key 'nodepools:pools' (a stack file has config, "
            "encryptedkey, encryptionsalt, environment, secretsprovider); config keys go "
            "under `config:`",
        ),
        (
            "confg:\n  nodepools:pools: []\n",
            ":1: unknown stack file key 'confg' (a stack file has config, encryptedkey, "
            "encryptionsalt, environment, secretsprovider); did you mean `config`?",
        ),
        (
            "config:\n  nodepools:pools: []\n  nodepools:pools: []\n",
            ":3: key 'nodepools:pools' is given twice (lines 2 and 3); YAML keeps only the last "
            "one, so the first would be ignored: merge them or remove one",
        ),
        (
            "config:\n  nodepools:pools:\n    - {name: a, name: b}\n",
            ":3: key 'name' is given twice (lines 3 and 3)",
        ),
        (
            "config:\n  nodepool:pools: []\n",
            ":2: config key 'nodepool:pools' is in namespace `nodepool`, which nothing reads; "
            "did you mean `nodepools`?",
        ),
    ],
)
def test_a_malformed_stack_file_exits_2_with_its_line(tmp_path, capsys, text, expected):
    stacks = _stacks(tmp_path, text)
    code, out, err = _plan(stacks, capsys)
    assert code == 2, out
    assert err.startswith(f"error: {stacks / 'Pulumi.t.yaml'}{expected}"), err
    assert "Traceback" not in err + out


@pytest.mark.parametrize(
    ("text", "path", "message"),
    [
        ("nodepools:pool: []", "nodepools:pool", "did you mean `nodepools:pools`?"),
        ("nodepools:device: []", "nodepools:device", "did you mean `nodepools:devices`?"),
        (
            "nodepools: {pools: []}",
            "nodepools:nodepools",
            "write `nodepools:pools` under `config:` instead of one `nodepools:` mapping",
        ),
    ],
)
def test_an_unknown_key_of_our_namespace_is_refused(tmp_path, capsys, text, path, message):
    stacks = _stacks(tmp_path, f"config:\n  {text}\n")
    code, out, _ = _plan(stacks, capsys)
    assert code == 2
    assert f"`{path}`: unknown config key" in out and message in out


def test_an_accelerator_stack_for_another_platform_than_its_pools_is_refused():
    pool = {"component": "GpuSpotPool", "name": "gpu", "cluster": "eks", "instance_type": "g5.xlarge"}  # fmt: skip
    config = {
        "clusters": {"eks": EKS, "oke": OKE},
        "pools": [pool],
        "devices": [
            {"component": "AcceleratorStack", "name": "sw", "pools": ["gpu"], "platform": "oke"}
        ],
    }
    with pytest.raises(SpecError) as caught:
        validate_fleet(config)
    found = {issue.path: issue.message for issue in caught.value.issues}
    assert found["nodepools:devices[0].platform"].startswith(
        "'oke', but the pools it serves are on eks "
    )
    # `generic` fits any cluster, and the pools' own platform is accepted.
    for platform in ("generic", "eks"):
        config["devices"][0]["platform"] = platform
        validate_fleet(config)


def test_a_garbage_project_file_exits_2(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text(":::\n  - [")
    assert main(["plan", "-C", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(
        f"error: {tmp_path / 'Pulumi.yaml'}:2:6: not valid YAML: "
    )
    (tmp_path / "Pulumi.yaml").write_text("name: p\nconfig: [1]\n")
    assert main(["plan", "-C", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path / 'Pulumi.yaml'}:2: `config` must be a mapping of key to value "
        "or `{type, default}` (got a list)\n"
    )


def test_a_folder_without_pulumi_yaml_says_so(tmp_path, capsys):
    assert main(["plan", "-C", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(
        f"error: {tmp_path / 'Pulumi.yaml'}: no such Pulumi project file; "
    )


def test_a_stack_without_a_stack_file_plans_on_the_defaults(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text(
        yaml.safe_dump({"name": "p", "runtime": "python", "config": {"who": "me"}})
    )
    (tmp_path / "__main__.py").write_text(
        "import pulumi\npulumi.export('who', pulumi.Config().require('who'))\n"
    )
    code = main(["plan", "-C", str(tmp_path), "--stack", "prod"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"Note: {tmp_path / 'Pulumi.prod.yaml'} does not exist: the stack is planned" in out


def test_plan_out_naming_a_file_exits_2_before_planning(tmp_path, capsys):
    target = tmp_path / "plan.txt"
    target.write_text("")
    code = main(["plan", "--stack", "dev", "--stacks-dir", str(ROOT / "stacks"), "--out", str(target)])  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err == (
        f"error: --out {target}: {target} is a file; --out names a folder for the artifacts\n"
    )


@pytest.mark.parametrize(
    ("document", "problems"),
    [
        ({"schema_version": 1}, ["`stack` is missing", "`pools` is missing"]),
        (
            {"schema_version": 1, "stack": "x", "pools": 5},
            ["`pools`: input should be a valid list (got 5)"],
        ),
    ],
)
def test_diff_of_a_malformed_plan_exits_2_naming_the_key(tmp_path, capsys, document, problems):
    import json

    path = tmp_path / "plan.json"
    path.write_text(json.dumps(document))
    assert main(["diff", str(path), str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: not a plan `nodepools diff` can read:\n")
    for problem in problems:
        assert f"  - {problem}\n" in err
    path.write_text('{"schema_version": 1,\n "stack": }')
    assert main(["diff", str(path), str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {path}:2:11: not a JSON plan (")


def test_a_failing_program_names_its_file_and_line(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (tmp_path / "__main__.py").write_text("import pulumi\n\nx = {}['nope']\n")
    assert main(["plan", "-C", str(tmp_path)]) == 2
    assert f"{tmp_path / '__main__.py'}:3: KeyError: 'nope'" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--repo", "not a repo"], "--repo 'not a repo': expected OWNER/NAME"),
        (["--repo", "a/b/c"], "--repo 'a/b/c': expected OWNER/NAME"),
        (["--repo", "a-/b"], "--repo 'a-/b': expected OWNER/NAME"),
        (["--pr", "0"], "--pr 0: a pull request number is 1 or more"),
        (["--api-url", "http://example.com"], "--api-url 'http://example.com' must be an https"),
    ],
)
def test_pr_comment_refuses_bad_arguments_before_any_request(tmp_path, capsys, monkeypatch, flags, message):  # fmt: skip
    import httpx

    def no_network(*args, **kwargs):
        raise AssertionError("a request was sent")

    monkeypatch.setattr(httpx.Client, "send", no_network)
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    body = tmp_path / "body.md"
    body.write_text("hello")
    args = {"--repo": "octo/fleet", "--pr": "1"}
    args.update(dict(zip(flags[::2], flags[1::2], strict=True)))
    argv = ["pr-comment", "--body", str(body)] + [x for kv in args.items() for x in kv]
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(f"error: {message}")


def test_pr_comment_without_its_body_file_exits_2(tmp_path, capsys):
    missing = tmp_path / "nope.md"
    argv = ["pr-comment", "--body", str(missing), "--repo", "o/r", "--pr", "1", "--dry-run"]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"error: {missing}: no such comment body file\n"


def test_markdown_of_a_failing_stack_carries_its_errors(tmp_path, capsys):
    import json

    stacks = _stacks(
        tmp_path,
        """
        config:
          nodepools:pools:
            - {component: MachinePool, name: x, instance_type: m5.large, replicas: 1}
        """,
    )
    code, out, _ = _plan(stacks, capsys, "t", "--format", "markdown")
    assert code == 2
    assert "- **`t`**: the program failed (the errors are below)" in out
    assert "<details open><summary>Errors</summary>" in out
    assert "  - `nodepools:pools[0].cluster`: is required\n" in out
    # The diff's comment too, when the head plan fails.
    code, head, _ = _plan(stacks, capsys, "t", "--format", "json")
    base = json.loads(head) | {"status": "ok", "error": None}
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "head.json").write_text(head)
    assert main(["diff", str(tmp_path / "base.json"), str(tmp_path / "head.json")]) == 1
    comment = capsys.readouterr().out
    assert "the head plan failed (the errors are below)" in comment
    assert "  - `nodepools:pools[0].cluster`: is required\n" in comment
