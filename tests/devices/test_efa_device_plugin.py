"""AcceleratorStack's EFA device plugin: without it no node advertises
`vpc.amazonaws.com/efa`, so the pods an EFA pool's scheduling info describes never schedule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nodepools
import pytest
from nodepools.devices.accelerator_stack import AcceleratorStack
from nodepools.fleet.deploy import validate_fleet
from nodepools.offline import ProgramError
from nodepools.specs import SpecError
from nodepools.specs.catalog.accelerators import lookup_accelerator
from nodepools.specs.core.node_matching import untolerated
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.core.taints import Taint
from nodepools.specs.devices.args import AcceleratorStackArgs
from nodepools.specs.devices.placement import advertised, efa_placement, release_daemons
from nodepools.specs.devices.releases import plan_releases

from tests.engines.mocks import run_on

RELEASE = "kubernetes:helm.sh/v3:Release"
KEYS = json.loads(
    (Path(nodepools.__file__).parent / "specs/devices/data/chart_values_keys.json").read_text()
)
CHART = "aws-efa-k8s-device-plugin"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
TEAM_TAINT = {"key": "team", "value": "ml", "effect": "NoExecute"}


def pool(
    name: str, instance_type: str, *taints: dict[str, Any], efa: bool = False
) -> dict[str, Any]:
    return {
        "name": name,
        "accelerator": lookup_accelerator(instance_type),
        "taints": list(taints),
        "instance_types": [instance_type],
        "efa": efa,
    }


def pools() -> list[dict[str, Any]]:
    return [
        pool("h100", "p5.48xlarge", GPU_TAINT, TEAM_TAINT, efa=True),
        pool("trn", "trn1.32xlarge", efa=True),
        # An EFA-capable type without `efa`: the plugin must stay off it.
        pool("l40s", "g6e.12xlarge", GPU_TAINT),
    ]


def spec(**kw: Any) -> AcceleratorStackArgs:
    base: dict[str, Any] = {"platform": "eks", "pools": pools()}
    return parse_spec(AcceleratorStackArgs, {**base, **kw}, "AcceleratorStack 't'")


def efa_release(s: AcceleratorStackArgs):
    found = [p for p in plan_releases("acc", s) if p.chart == CHART]
    assert len(found) <= 1
    return found[0] if found else None


def test_one_pinned_release_serves_every_efa_pool():
    plan = efa_release(spec())
    assert plan is not None
    assert (plan.name, plan.repository, plan.version, plan.namespace) == (
        "acc-efa",
        "https://aws.github.io/eks-charts",
        "v0.5.30",
        "kube-system",
    )
    assert plan.pools == ("h100", "trn")
    assert KEYS[CHART]["version"] == plan.version
    # Every value path we set is one of the pinned chart's.
    assert {"tolerations", "nodeSelector", "supportedInstanceLabels.values"} <= set(
        KEYS[CHART]["keys"]
    )
    assert set(plan.values) == {"tolerations", "nodeSelector", "supportedInstanceLabels"}
    assert set(plan.values["supportedInstanceLabels"]) == {"values"}
    assert plan.values["nodeSelector"] == {"nodepools.dev/efa": "true"}
    # The chart's default list is empty: our list is exactly the EFA pools' taints.
    assert plan.values["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
        {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoExecute"},
    ]
    types = plan.values["supportedInstanceLabels"]["values"]
    assert set(KEYS[CHART]["defaults"]["supportedInstanceLabels.values"]) <= set(types)
    assert {"p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge", "trn2.48xlarge"} <= set(types)
    assert types == sorted(set(types))


def test_the_daemon_lands_on_every_efa_node_and_on_no_other():
    s = spec()
    plan = efa_release(s)
    assert plan is not None
    (daemon,) = release_daemons(plan.name, plan.chart, plan.values)
    labels = AcceleratorStack.required_labels(s)
    for served in s.pools:
        (instance_type,) = served.instance_types
        node = {
            **served.selector,
            **labels.get(served.name, {}),
            "node.kubernetes.io/instance-type": instance_type,
        }
        assert daemon.admits(node) is served.efa, served.name
        if served.efa:
            assert untolerated(daemon.tolerations, served.all_taints) == []
    # EKS Auto Mode nodes bring their own EFA support: the chart keeps its pods off them.
    auto = {
        "nodepools.dev/efa": "true",
        "node.kubernetes.io/instance-type": "p5.48xlarge",
        "eks.amazonaws.com/compute-type": "auto",
    }
    assert not daemon.admits(auto)
    assert efa_placement(s) == {
        "h100": {"tolerated": True, "selected": True},
        "trn": {"tolerated": True, "selected": True},
    }
    assert all(a.tolerated and a.selected for a in advertised(s))


def test_the_proof_catches_a_missing_toleration_and_a_type_off_the_list():
    (daemon,) = release_daemons("r", CHART, {"nodeSelector": {"nodepools.dev/efa": "true"}})
    taint = Taint(key="team", value="ml", effect="NoExecute")
    assert untolerated(daemon.tolerations, [taint]) == [taint]
    node = {"nodepools.dev/efa": "true", "node.kubernetes.io/instance-type": "p9.96xlarge"}
    assert not daemon.admits(node)


def test_options_enabled_version_namespace():
    assert efa_release(spec(efa={"enabled": False})) is None
    assert "h100" not in AcceleratorStack.required_labels(spec(efa={"enabled": False}))
    plan = efa_release(spec(efa={"version": "v0.5.29", "namespace": "efa"}))
    assert plan is not None and (plan.version, plan.namespace) == ("v0.5.29", "efa")
    no_efa = [pool("l40s", "g6e.12xlarge", GPU_TAINT)]
    assert efa_release(spec(pools=no_efa)) is None
    assert AcceleratorStack.required_labels(spec())["h100"] == {"nodepools.dev/efa": "true"}


@pytest.mark.parametrize(
    ("kw", "path", "fragment"),
    [
        (
            {"efa": {"enabled": True}, "pools": [pool("l40s", "g6e.12xlarge")]},
            "efa.enabled",
            "true but no served pool has `efa`",
        ),
        (
            {"platform": "rosa", "pools": [pool("h100", "p5.48xlarge", efa=True)]},
            "pools",
            "['h100'] have `efa`, which is EKS only (platform 'rosa')",
        ),
        ({"efa": {"enabled": "yes"}}, "efa.enabled", ""),
    ],
)
def test_bad_efa_options_are_errors_with_their_path(kw: dict[str, Any], path: str, fragment: str):
    args: dict[str, Any] = {"platform": "eks", "pools": pools(), **kw}
    with pytest.raises(ProgramError) as err:
        run_on("offline", lambda: AcceleratorStack("acc", args))
    assert isinstance(err.value.cause, SpecError)
    assert any(p.startswith(path) for p in err.value.cause.paths())
    assert fragment in str(err.value.cause)
    assert err.value.capture.resources == []


@pytest.mark.parametrize("engine", ["plain", "preview", "offline"])
def test_served_eks_and_karpenter_efa_pools_get_the_plugin(engine: str):
    from nodepools import GpuSpotPool, KarpenterNodePool

    def program() -> None:
        cluster = {"kind": "eks", "cluster_name": "c", "node_role_arn": "arn:aws:iam::123456789012:role/n",
                   "subnet_ids": ["subnet-1"]}  # fmt: skip
        gpu = GpuSpotPool(
            "h100",
            {
                "cluster": cluster,
                "instance_type": "p5.48xlarge",
                "spot": None,
                "network": {
                    "efa": True,
                    "vpc_id": "vpc-1",
                    "security_group_ids": ["sg-1"],
                    "subnet_id": "subnet-1",
                },
            },
        )
        karpenter = KarpenterNodePool(
            "k-h100", {"instance_types": ["p5.48xlarge"], "efa": True, "node_class_name": "x"}
        )
        AcceleratorStack(
            "devices", {"platform": "eks", "pools": AcceleratorStack.served([gpu, karpenter])}
        )

    capture = run_on(engine, program)
    releases = {r.name: r for r in capture.by_type(RELEASE)}
    assert releases["devices-efa"].inputs["chart"] == CHART
    (stack,) = [r for r in capture.resources if r.type == "nodepools:index:AcceleratorStack"]
    assert set(stack.inputs["efa"]) == {"h100", "k-h100"}


def test_a_fleet_labels_its_efa_pools_and_refuses_a_second_efa_plugin_on_one_cluster():
    config: dict[str, Any] = {
        "clusters": {
            "eks": {
                "kind": "eks",
                "cluster_name": "c",
                "node_role_arn": "arn:aws:iam::123456789012:role/n",
                "subnet_ids": ["subnet-1"],
            },
        },
        "pools": [
            {
                "component": component,
                "name": name,
                "cluster": "eks",
                "instance_type": instance_type,
                **({"spot": None} if component == "GpuSpotPool" else {"replicas": 1}),
                "network": {
                    "efa": True,
                    "vpc_id": "vpc-1",
                    "security_group_ids": ["sg-1"],
                    "subnet_id": "subnet-1",
                },
            }
            # `b` has EFA and no GPU: only the EFA plugin serves it.
            for component, name, instance_type in (
                ("GpuSpotPool", "a", "p5.48xlarge"),
                ("MachinePool", "b", "c5n.18xlarge"),
            )
        ],
        "devices": [{"component": "AcceleratorStack", "name": "d", "pools": ["a", "b"]}],
    }
    entries, _ = validate_fleet(config)
    labels = {e.name: dict(e.args.labels) for e in entries if e.name in ("a", "b")}
    assert all(v.get("nodepools.dev/efa") == "true" for v in labels.values())
    config["devices"] = [
        {"component": "AcceleratorStack", "name": "d1", "pools": ["a"]},
        {"component": "AcceleratorStack", "name": "d2", "pools": ["b"]},
    ]
    with pytest.raises(SpecError) as err:
        validate_fleet(config)
    assert "already installs the efa software" in str(err.value)
    assert "nvidia software" not in str(err.value)
