"""`pulumi new` templates (templates/): each made into a project as `pulumi new` makes it (a
fresh copy, `${PROJECT}` and `${DESCRIPTION}` filled in, the options' values in the stack's
config file) and planned offline; a config key that is no option of the template refuses in
one line naming the fix (issue 33 item 3)."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from nodepools.planning.cli import main as nodepools_main
from nodepools.template_options import TemplateOptionError, template_options

from tests.provider.test_provider_host import (
    _ADDRESS,
    _check_against_schema,
    _construct,
    _interpolate,
    engine,  # noqa: F401  (fixtures the YAML template's test uses)
    provider,  # noqa: F401
    schema,  # noqa: F401
)

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
PYTHON = sorted(p.name for p in TEMPLATES.iterdir() if (p / "__main__.py").exists())
EXTRA = {"python-eks-gpu": "aws", "python-oke": "oci", "python-karpenter": None}
PROJECT = "my-gpus"


def pulumi_new(template: str, folder: Path, **values: str) -> Path:
    """The project `pulumi new <template> --name my-gpus --stack dev` makes, with each
    option's default (or the value given here, as `-c key=value` would)."""
    project = folder / template
    shutil.copytree(TEMPLATES / template, project)
    path = project / "Pulumi.yaml"
    text = path.read_text().replace("${PROJECT}", PROJECT)
    path.write_text(text.replace("${DESCRIPTION}", "GPU pools for the ML team"))
    options = yaml.safe_load(path.read_text())["template"].get("config", {})
    config = {f"{PROJECT}:{key}": spec["default"] for key, spec in options.items()}
    config.update({f"{PROJECT}:{key}": value for key, value in values.items()})
    (project / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": config}))
    return project


def test_there_is_a_template_per_backend():
    assert sorted(p.name for p in TEMPLATES.iterdir()) == [
        "python-eks-gpu",
        "python-karpenter",
        "python-oke",
        "yaml-karpenter",
    ]
    assert sorted(EXTRA) == PYTHON


@pytest.mark.parametrize("template", sorted(p.name for p in TEMPLATES.iterdir()))
def test_a_template_has_what_pulumi_new_needs(template: str):
    folder = TEMPLATES / template
    project = yaml.safe_load((folder / "Pulumi.yaml").read_text())
    assert project["name"] == "${PROJECT}" and project["description"] == "${DESCRIPTION}"
    assert project["template"]["description"]
    assert (folder / ".gitignore").is_file() and (folder / "requirements.txt").is_file()
    if template in PYTHON:
        assert project["runtime"]["name"] == "python"
        assert project["runtime"]["options"]["virtualenv"] == "venv"
        assert "venv/" in (folder / ".gitignore").read_text().split()


def _declared_options(template: str) -> dict[str, str]:
    """The option -> default mapping the program gives `template_options`."""
    tree = ast.parse((TEMPLATES / template / "__main__.py").read_text())
    [call] = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "template_options"
    ]
    return ast.literal_eval(call.args[0])


@pytest.mark.parametrize("template", PYTHON)
def test_the_program_reads_the_options_pulumi_new_asks_for_with_the_same_defaults(template: str):
    asked = yaml.safe_load((TEMPLATES / template / "Pulumi.yaml").read_text())["template"]
    defaults = {key: str(spec["default"]) for key, spec in asked["config"].items()}
    assert _declared_options(template) == defaults


@pytest.mark.parametrize("template", PYTHON)
def test_requirements_name_the_extra_of_the_templates_cloud(template: str):
    [requirement] = [
        line
        for line in (TEMPLATES / template / "requirements.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    extra = EXTRA[template]
    assert requirement == (f"nodepools[{extra}]>=0.1,<0.2" if extra else "nodepools>=0.1,<0.2")


@pytest.mark.parametrize("template", PYTHON)
def test_a_new_project_from_the_template_plans_offline(template: str, tmp_path: Path, capsys):
    project = pulumi_new(template, tmp_path)
    assert nodepools_main(["plan", "-C", str(project), "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("Plan OK"), out[-3000:]
    assert "gpu_scheduling_info" in out


def test_an_option_given_a_value_is_used(tmp_path: Path, capsys):
    project = pulumi_new("python-eks-gpu", tmp_path, gpuInstanceType="g6.2xlarge")
    assert nodepools_main(["plan", "-C", str(project), "--stack", "dev"]) == 0
    assert "g6.2xlarge" in capsys.readouterr().out


@pytest.mark.parametrize("template", PYTHON)
def test_an_unknown_option_refuses_in_one_line_naming_the_fix(
    template: str, tmp_path: Path, capsys
):
    first = next(iter(_declared_options(template)))
    typo = first[:-1]  # a misspelt option, which Pulumi itself would pass on unread
    project = pulumi_new(template, tmp_path, **{typo: "x"})
    assert nodepools_main(["plan", "-C", str(project), "--stack", "dev"]) != 0
    out = capsys.readouterr().out
    [line] = [text for text in out.splitlines() if "TemplateOptionError" in text]
    assert line.endswith(
        f"TemplateOptionError: `{PROJECT}:{typo}`: not an option of this template; did you "
        f"mean `{first}`? (options: {', '.join(sorted(_declared_options(template)))}); rename "
        f"it in the stack's config file, or remove it with `pulumi config rm {typo}`"
    )
    assert "nothing would be created" in out


def test_template_options_gives_defaults_and_ignores_other_namespaces(monkeypatch):
    from pulumi.runtime import config

    monkeypatch.setattr(
        config, "CONFIG", config.CONFIG.__class__("c", default={"aws:region": "us-east-1"})
    )
    monkeypatch.setattr(config, "get_config_env", dict)
    assert template_options({"a": "1"}, project="p") == {"a": "1"}
    config.CONFIG.set({"p:a": "2", "aws:region": "x"})
    assert template_options({"a": "1"}, project="p") == {"a": "2"}
    config.CONFIG.set({"p:zzz": "2"})
    with pytest.raises(TemplateOptionError, match=r"^`p:zzz`: not an option of this template \("):
        template_options({"a": "1"}, project="p")


# --- the YAML template, through the component provider --------------------------------------

YAML_TEMPLATE = TEMPLATES / "yaml-karpenter"


def test_the_yaml_template_declares_every_option_it_reads():
    document = yaml.safe_load((YAML_TEMPLATE / "Pulumi.yaml").read_text())
    used = set(re.findall(r"\$\{([\w.]+)\}", yaml.safe_dump(document["resources"])))
    assert used == set(document["config"])  # the CLI refuses a key not declared there


def test_a_new_yaml_project_type_checks_and_constructs_through_the_provider(
    tmp_path: Path,
    schema: dict[str, Any],  # noqa: F811
    provider: Any,  # noqa: F811
    engine: Any,  # noqa: F811
):
    project = pulumi_new("yaml-karpenter", tmp_path)
    document = yaml.safe_load((project / "Pulumi.yaml").read_text())
    assert document["name"] == PROJECT and "packages" not in document
    config = {key: spec["default"] for key, spec in document["config"].items()}
    fake, address = engine
    _ADDRESS[:] = [address]
    for name, resource in document["resources"].items():
        token = resource["type"]
        definition = schema["resources"][token]
        props = resource.get("properties", {})
        as_type = {
            "type": "object",
            "properties": definition["inputProperties"],
            "required": definition.get("requiredInputs", []),
        }
        assert _check_against_schema(_interpolate(props, config), as_type, schema, name) == []
        response = _construct(
            provider, fake, token.rsplit(":", 1)[-1], name, _interpolate(props, config)
        )
        assert response.urn.endswith(f"{token}::{name}")
    registered = {(r.type, r.name) for r in fake.registrations}
    assert ("kubernetes:karpenter.sh/v1:NodePool", "gpu-node-pool") in registered
    for expression in document["outputs"].values():
        resource, _, prop = expression[2:-1].partition(".")
        assert prop in schema["resources"][document["resources"][resource]["type"]]["properties"]


def test_the_wheel_puts_the_provider_plugin_on_path():
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["pulumi-resource-nodepools"] == "nodepools.provider.host:main"
