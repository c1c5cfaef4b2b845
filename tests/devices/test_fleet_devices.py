"""AcceleratorStack in a fleet: pools named, their nodes labelled for per-pool MIG and time
slicing, recipes and quotas counting what the pools advertise."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from nodepools.fleet.deploy import deploy_fleet, validate_fleet
from nodepools.offline import ProgramError, run
from nodepools.specs import SpecError

OKE = {
    "kind": "oke",
    "cluster_id": "ocid1.cluster.oc1..mig",
    "compartment_id": "ocid1.compartment.oc1..x",
    "image_id": "ocid1.image.oc1..x",
    "placements": [{"availability_domain": "AD-1", "subnet_id": "ocid1.subnet.oc1..x"}],
}
EKS = {
    "kind": "eks",
    "cluster_name": "ml",
    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
    "subnet_ids": ["subnet-0a1b2c3d4e5f60001"],
}

FLEET: dict[str, Any] = {
    "clusters": {"oke": OKE},
    "pools": [
        {
            "component": "SharedNodePool",
            "name": "h100",
            "cluster": "oke",
            "shape": "BM.GPU.H100.8",
            "size": 2,
            "boot_volume_gb": 500,
        },
        {
            "component": "SharedNodePool",
            "name": "a100",
            "cluster": "oke",
            "shape": "BM.GPU.A100-v2.8",
            "size": 1,
            "boot_volume_gb": 500,
        },
    ],
    "devices": [
        {
            "component": "AcceleratorStack",
            "name": "gpu-software",
            "oke_addons": False,
            "nvidia": {
                "mig": {"strategy": "mixed", "profile": {"h100": "1g.10gb"}},
                "time_slicing": {"replicas": {"a100": 2}},
            },
        }
    ],
    "recipes": [
        {
            "component": "Recipe",
            "name": "notebooks",
            "image": "jupyter/base",
            "node_shape": "BM.GPU.H100.8",
            "gpus": 7,
            "replicas": 2,
            "pools": ["h100"],
        }
    ],
    "governance": [
        {
            "component": "PoolQuotas",
            "name": "org",
            "pools": ["h100", "a100"],
            "departments": [
                {
                    "name": "research",
                    "projects": [
                        {"name": "nlp", "quotas": {"h100": {"gpu": 100}, "a100": {"gpu": 16}}}
                    ],
                }
            ],
        }
    ],
}


def test_pools_are_labelled_and_the_stack_defaults_from_their_cluster():
    entries, _ = validate_fleet(copy.deepcopy(FLEET))
    by_name = {e.name: e for e in entries}
    assert by_name["h100"].args.labels == {"nvidia.com/mig.config": "all-1g.10gb"}
    assert by_name["a100"].args.labels == {"nvidia.com/device-plugin.config": "a100"}
    stack = by_name["gpu-software"].args
    assert stack.platform == "oke"
    assert stack.oke_cluster_id == "ocid1.cluster.oc1..mig"
    assert [p.name for p in stack.pools] == ["a100", "h100"]


def test_mig_and_time_slicing_end_to_end_in_a_fleet():
    capture = run(lambda: deploy_fleet(copy.deepcopy(FLEET)))
    node_pools = {r.name: r for r in capture.by_type("oci:ContainerEngine/nodePool:NodePool")}
    labels = {
        name: {kv["key"]: kv["value"] for kv in r.inputs.get("initialNodeLabels") or []}
        for name, r in node_pools.items()
    }
    h100 = next(v for k, v in labels.items() if k.startswith("h100"))
    a100 = next(v for k, v in labels.items() if k.startswith("a100"))
    assert h100["nvidia.com/mig.config"] == "all-1g.10gb"
    assert a100["nvidia.com/device-plugin.config"] == "a100"
    (release,) = capture.by_type("kubernetes:helm.sh/v3:Release")
    assert release.inputs["values"]["mig"] == {"strategy": "mixed"}
    assert sorted(release.inputs["values"]["devicePlugin"]["config"]["data"]) == ["a100", "default"]
    # The recipe asks for MIG slices, as many as it asked for.
    (deployment,) = capture.by_type("kubernetes:apps/v1:Deployment")
    (container,) = deployment.inputs["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"] == {"nvidia.com/mig-1g.10gb": "7"}
    # Quotas count 2 nodes x 8 GPUs x 7 slices of H100 and 1 x 8 x 2 time-sliced A100s.
    (stack,) = [r for r in capture.components() if r.type == "nodepools:index:PoolQuotas"]
    pools = stack.inputs["spec"]["pools"]
    assert pools["h100"]["capacity"]["gpu"] == 112
    assert pools["a100"]["capacity"]["gpu"] == 16
    flavors = capture.by_type("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    covered = {
        resource
        for queue in flavors
        for group in queue.inputs["spec"]["resourceGroups"]
        for resource in group["coveredResources"]
    }
    assert "nvidia.com/mig-1g.10gb" in covered


def test_a_recipe_asking_for_whole_gpus_on_a_mig_pool_is_an_error_with_its_path():
    fleet = copy.deepcopy(FLEET)
    fleet["recipes"][0]["accelerator_resource"] = "nvidia.com/gpu"
    with pytest.raises(SpecError) as err:
        validate_fleet(fleet)
    assert "nodepools:recipes[0].accelerator_resource" in err.value.paths()
    assert "cut into MIG slices" in str(err.value)


def test_a_pool_label_that_contradicts_the_stack_is_an_error_with_its_path():
    fleet = copy.deepcopy(FLEET)
    fleet["pools"][1]["labels"] = {"nvidia.com/device-plugin.config": "other"}
    with pytest.raises(SpecError) as err:
        validate_fleet(fleet)
    assert "nodepools:pools[1].labels.nvidia.com/device-plugin.config" in err.value.paths()


def test_left_out_pools_are_every_accelerator_pool_of_one_cluster():
    fleet = copy.deepcopy(FLEET)
    fleet["clusters"]["eks"] = EKS
    fleet["pools"].append(
        {
            "component": "GpuSpotPool",
            "name": "spot",
            "cluster": "eks",
            "instance_type": "g5.2xlarge",
        }
    )
    with pytest.raises(SpecError) as err:
        validate_fleet(fleet)
    assert "nodepools:devices[0].pools" in err.value.paths()
    assert "one AcceleratorStack serves the pools of one cluster" in str(err.value)


def test_nothing_is_registered_when_a_device_entry_is_bad():
    fleet = copy.deepcopy(FLEET)
    fleet["devices"][0]["pools"] = ["h100", "nope"]
    with pytest.raises(ProgramError) as err:
        run(lambda: deploy_fleet(fleet))
    assert err.value.capture.resources == []
    assert "nodepools:devices[0].pools[1]" in str(err.value.cause)


def test_karpenter_families_and_startup_taints_reach_the_neuron_release():
    node_class = {
        "role": "KarpenterNodeRole-ml",
        "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
        "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
    }
    fleet: dict[str, Any] = {
        "pools": [
            {
                "component": "KarpenterNodePool",
                "name": "trn2",
                "node_class": node_class,
                "instance_families": ["trn2"],
                "startup_taints": ["node.example.com/initializing:NoSchedule"],
                "limits": {"aws.amazon.com/neuron": 32},
            }
        ],
        "devices": [{"component": "AcceleratorStack", "name": "neuron", "namespace": "neuron"}],
    }
    entries, _ = validate_fleet(fleet)
    stack = next(e.args for e in entries if e.name == "neuron")
    assert stack.platform == "eks"
    (served,) = stack.pools
    # The family's types from the catalog (trn2u is another family).
    assert served.instance_types == ["trn2.3xlarge", "trn2.48xlarge"]
    capture = run(lambda: deploy_fleet(fleet))
    (release,) = capture.by_type("kubernetes:helm.sh/v3:Release")
    values = release.inputs["values"]
    assert values["devicePlugin"]["namespaceOverride"] == "neuron"
    assert {"trn2.48xlarge", "trn2u.48xlarge"} <= set(values["neuronInstances"])
    assert {
        "key": "node.example.com/initializing",
        "operator": "Exists",
        "effect": "NoSchedule",
    } in values["devicePlugin"]["tolerations"]


def test_two_stacks_for_one_vendor_on_one_cluster_are_an_error():
    fleet = copy.deepcopy(FLEET)
    fleet["devices"] = [
        {"component": "AcceleratorStack", "name": "one", "pools": ["h100"], "oke_addons": False},
        {"component": "AcceleratorStack", "name": "two", "pools": ["a100", "h100"]},
    ]
    fleet["recipes"] = []
    fleet["governance"] = []
    with pytest.raises(SpecError) as err:
        validate_fleet(fleet)
    message = str(err.value)
    assert "nodepools:devices[1].pools" in err.value.paths()
    assert "pool 'h100' is served by 'one' too" in message
    assert "'one' already installs the nvidia software on oke ocid1.cluster.oc1..mig" in message


def test_oke_add_on_version_is_the_vendor_version():
    fleet = copy.deepcopy(FLEET)
    fleet["devices"] = [
        {"component": "AcceleratorStack", "name": "gpu", "nvidia": {"version": "v1.2.3"}}
    ]
    fleet["recipes"] = []
    fleet["governance"] = []
    capture = run(lambda: deploy_fleet(fleet))
    (addon,) = capture.by_type("oci:ContainerEngine/addon:Addon")
    assert (addon.inputs["addonName"], addon.inputs["version"]) == ("NvidiaGpuPlugin", "v1.2.3")
    assert addon.inputs["clusterId"] == "ocid1.cluster.oc1..mig"
