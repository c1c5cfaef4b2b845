"""The instance-type catalog: complete for current accelerated families, sourced, checked."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from nodepools.specs.catalog.accelerators import CATALOG, lookup_accelerator
from nodepools.specs.catalog.instance_types import (
    DATA,
    accelerated_family,
    architecture,
    architecture_from_name,
    catalog_names,
    cloud_of_name,
    instance_type,
    source_url,
    unknown_type_warning,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "instance_catalog", REPO_ROOT / "scripts" / "instance_catalog.py"
)
script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(script)


# (type, resource, count, model) the issue asks the catalog to know.
ACCELERATED = [
    ("g5g.xlarge", "nvidia.com/gpu", 1, "T4G"),
    ("g5g.16xlarge", "nvidia.com/gpu", 2, "T4G"),
    ("g6.48xlarge", "nvidia.com/gpu", 8, "L4"),
    ("g6e.12xlarge", "nvidia.com/gpu", 4, "L40S"),
    ("gr6.8xlarge", "nvidia.com/gpu", 1, "L4"),
    ("g6f.large", "nvidia.com/gpu", 1, "L4-3Q"),
    ("g6f.4xlarge", "nvidia.com/gpu", 1, "L4-12Q"),
    ("p4d.24xlarge", "nvidia.com/gpu", 8, "A100-40GB"),
    ("p4de.24xlarge", "nvidia.com/gpu", 8, "A100-80GB"),
    ("p5.4xlarge", "nvidia.com/gpu", 1, "H100"),
    ("p5.48xlarge", "nvidia.com/gpu", 8, "H100"),
    ("p5e.48xlarge", "nvidia.com/gpu", 8, "H200"),
    ("p5en.48xlarge", "nvidia.com/gpu", 8, "H200"),
    ("p6-b200.48xlarge", "nvidia.com/gpu", 8, "B200"),
    ("p6e-gb200.36xlarge", "nvidia.com/gpu", 4, "B200"),
    ("trn1.2xlarge", "aws.amazon.com/neuron", 1, "Trainium"),
    ("trn1n.32xlarge", "aws.amazon.com/neuron", 16, "Trainium"),
    ("trn2.48xlarge", "aws.amazon.com/neuron", 16, "Trainium2"),
    ("inf2.24xlarge", "aws.amazon.com/neuron", 6, "Inferentia2"),
    ("VM.GPU.A10.1", "nvidia.com/gpu", 1, "A10"),
    ("BM.GPU.A100-v2.8", "nvidia.com/gpu", 8, "A100-80GB"),
    ("BM.GPU.H100.8", "nvidia.com/gpu", 8, "H100"),
    ("BM.GPU.H200.8", "nvidia.com/gpu", 8, "H200"),
    ("BM.GPU.B200.8", "nvidia.com/gpu", 8, "B200"),
    ("BM.GPU.L40S.4", "nvidia.com/gpu", 4, "L40S"),
    ("BM.GPU.MI300X.8", "amd.com/gpu", 8, "MI300X"),
]


@pytest.mark.parametrize(("name", "resource", "count", "model"), ACCELERATED)
def test_the_catalog_knows_current_accelerated_types(name, resource, count, model):
    found = lookup_accelerator(name)
    assert (found.resource, found.count, found.model) == (resource, count, model)


def test_entries_know_architecture_cpus_and_memory_and_cite_a_source():
    g5g = instance_type("g5g.xlarge")
    assert (g5g.arch, g5g.vcpus, g5g.memory_mib) == ("arm64", 4, 8 * 1024)
    assert g5g.accelerator.memory_mib == 16 * 1024
    p5 = instance_type("p5.4xlarge")
    assert (p5.arch, p5.vcpus, p5.memory_mib) == ("x86_64", 16, 256 * 1024)
    for name in ("m7g.large", "c7g.xlarge", "t4g.medium", "p6e-gb200.36xlarge"):
        assert instance_type(name).arch == "arm64", name
    assert instance_type("m5.large").accelerator is None
    for name in catalog_names():
        assert source_url(instance_type(name).source).startswith("https://"), name


def test_every_name_in_the_catalog_follows_its_clouds_syntax_and_arch_rule():
    # The rules that place types the catalog does not know are tried on every one it does.
    for name in catalog_names():
        entry = instance_type(name)
        assert cloud_of_name(name) == entry.cloud, name
        assert architecture_from_name(name) == entry.arch, name


@pytest.mark.parametrize(
    ("name", "accelerated"),
    [
        ("g7.xlarge", True),
        ("gr7.4xlarge", True),
        ("p7.48xlarge", True),
        ("trn3.48xlarge", True),
        ("inf3.xlarge", True),
        ("dl1.24xlarge", True),
        ("BM.GPU.X1.8", True),
        ("VM.GPU.NEW.1", True),
        ("m9.large", False),
        ("c5.large", False),
        ("VM.Standard.E6.Flex", False),
    ],
)
def test_accelerated_families_by_name(name, accelerated):
    assert accelerated_family(name) is accelerated


def test_unknown_well_formed_types_get_an_architecture_and_a_warning():
    assert architecture("m99g.large") == "arm64"
    assert architecture("m99.large") == "x86_64"
    assert architecture("VM.Standard.A9.Flex") == "arm64"
    assert "not in the nodepools catalog" in unknown_type_warning("m99.large")
    assert unknown_type_warning("m5.large") is None
    assert unknown_type_warning("not a type") is None


def test_catalog_accelerators_are_the_accelerated_entries():
    assert set(CATALOG) == {n for n in catalog_names() if instance_type(n).accelerator}
    assert len(CATALOG) > 100


def test_check_mode_passes_on_the_packaged_catalog(capsys):
    assert script.main(["--check"]) == 0
    assert "OK" in capsys.readouterr().out


def _tampered(tmp_path, change) -> str:
    catalog = json.loads(DATA.read_text())
    change(catalog["instance_types"])
    path = tmp_path / "instance_types.json"
    path.write_text(script.render(catalog))
    return str(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t["g6.xlarge"].update(accelerator=None), "accelerated family without"),
        (lambda t: t["BM.GPU.H100.8"].update(vcpus=10), "differs from the table"),
        (lambda t: t["m5.large"].update(source="nowhere"), "is not in `sources`"),
        (lambda t: t["m5.large"].update(arch="sparc"), "m5.large:"),
        (lambda t: t.pop("p3.2xlarge"), "p3.2xlarge: differs"),
        (lambda t: t["p5.48xlarge"].update(efa_interfaces=None), "says whether a type has EFA"),
        (lambda t: t["p5.48xlarge"].update(efa_interfaces=-1), "p5.48xlarge:"),
    ],
)
def test_check_mode_fails_on_a_wrong_catalog(tmp_path, capsys, change, message):
    assert script.main(["--check", "--data", _tampered(tmp_path, change)]) == 1
    assert message in capsys.readouterr().out


def test_check_mode_wants_the_canonical_form(tmp_path, capsys):
    path = tmp_path / "instance_types.json"
    path.write_text(json.dumps(json.loads(DATA.read_text()), indent=2))
    assert script.main(["--check", "--data", str(path)]) == 1
    assert "canonical form" in capsys.readouterr().out


def test_the_generator_reads_karpenters_reference_tables():
    reference = "\n".join(
        [
            "## g5g Family",
            "### `g5g.xlarge`",
            "#### Labels",
            " | Label | Value |",
            " |--|--|",
            " |karpenter.k8s.aws/instance-cpu|4|",
            " |karpenter.k8s.aws/instance-gpu-count|1|",
            " |karpenter.k8s.aws/instance-gpu-manufacturer|nvidia|",
            " |karpenter.k8s.aws/instance-gpu-memory|16384|",
            " |karpenter.k8s.aws/instance-gpu-name|t4g|",
            " |karpenter.k8s.aws/instance-memory|8192|",
            " |kubernetes.io/arch|arm64|",
            "#### Resources",
            " | Resource | Quantity |",
            " |--|--|",
            " |nvidia.com/gpu|1|",
        ]
    )
    built = script.build("abc123", reference)
    assert built["instance_types"]["g5g.xlarge"] == {
        "cloud": "aws",
        "arch": "arm64",
        "vcpus": 4,
        "memory_mib": 8192,
        "accelerator": {
            "resource": "nvidia.com/gpu",
            "count": 1,
            "vendor": "nvidia",
            "model": "T4G",
            "memory_mib": 16384,
        },
        "flex": None,
        "efa_interfaces": 0,  # no `vpc.amazonaws.com/efa` line: no EFA
        "source": "karpenter",
    }
    assert "/blob/abc123/" in built["sources"]["karpenter"]
    assert "BM.GPU.H100.8" in built["instance_types"]  # the hand-kept tables join in


def test_efa_interfaces_come_from_karpenters_efa_resource():
    reference = "\n".join(
        [
            "### `p5.48xlarge`",
            "#### Labels",
            " |karpenter.k8s.aws/instance-cpu|192|",
            " |karpenter.k8s.aws/instance-memory|2097152|",
            " |kubernetes.io/arch|amd64|",
            "#### Resources",
            " |vpc.amazonaws.com/efa|32|",
        ]
    )
    assert script.build("abc", reference)["instance_types"]["p5.48xlarge"]["efa_interfaces"] == 32


@pytest.mark.parametrize(
    ("name", "interfaces"),
    [
        # Karpenter's list (EC2 DescribeInstanceTypes MaximumEfaInterfaces): one per card.
        ("p5.48xlarge", 32),
        ("p5en.48xlarge", 16),
        ("p4d.24xlarge", 4),
        ("g6e.48xlarge", 4),
        ("g6e.12xlarge", 1),
        ("trn1.32xlarge", 8),
        ("c5n.18xlarge", 1),
        ("g6e.2xlarge", 0),
        ("m5.large", 0),
        ("p3.2xlarge", None),  # hand-kept entry: its page does not say
        ("BM.GPU.H100.8", None),  # OCI: no EFA
    ],
)
def test_the_catalog_knows_efa_interfaces(name, interfaces):
    assert instance_type(name).efa_interfaces == interfaces
