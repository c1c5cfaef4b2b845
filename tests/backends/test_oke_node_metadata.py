"""OKE node pools' `nodeMetadata`: the cloud-init user data every pool sends (taints, boot
volume growth, the pool's own script) and the `kubelet-extra-args` the OCI cluster
autoscaler reads an empty pool's taints from."""

from __future__ import annotations

import base64
import re
import subprocess
from pathlib import Path
from typing import Any

from nodepools import GpuSpotPool, MachinePool
from nodepools.backends.oke.node_pool import GROW_ROOT, OKE_INIT, cloud_init
from nodepools.offline import run

from tests.conftest import OKE

NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
PREEMPTIBLE = "oci.oraclecloud.com/oke-is-preemptible"
# How the OCI cluster autoscaler finds the taints of an empty pool's node template in its
# `kubelet-extra-args` node metadata (kubernetes/autoscaler,
# cluster-autoscaler/cloudprovider/oci/nodepools/registered_taints.go).
AUTOSCALER_TAINTS = re.compile(r"-?-register-with-taints[= ](\S*)")


def node_metadata(args: dict[str, Any], name: str = "pool") -> dict[str, str]:
    capture = run(lambda: MachinePool(name, {"cluster": OKE, **args}))
    return capture.get(NODE_POOL, f"{name}-node-pool").inputs["nodeMetadata"]


def script_of(metadata: dict[str, str]) -> str:
    return base64.b64decode(metadata["user_data"]).decode()


CPU = {"instance_type": "VM.Standard.E4.Flex", "ocpus": 2, "memory_gb": 16, "replicas": 1}


def test_a_pool_without_taints_still_sends_the_oke_init_script():
    metadata = node_metadata(CPU)
    script = script_of(metadata)
    assert script == f"#!/bin/bash\nset -euo pipefail\n{OKE_INIT}\nbash /var/run/oke-init.sh\n"
    assert set(metadata) == {"user_data"}


def test_removing_the_last_taint_sends_user_data_without_it():
    """The provider keeps a removed `node_metadata` in state (Optional + Computed), so the
    pool must send user data without the taint, not stop sending it."""
    before = node_metadata({**CPU, "taints": ["dedicated=batch:NoSchedule"]})
    assert "--register-with-taints=dedicated=batch:NoSchedule" in script_of(before)
    after = node_metadata(CPU)
    assert "--register-with-taints" not in script_of(after)
    assert "kubelet-extra-args" not in after


def test_a_boot_volume_grows_the_root_filesystem_without_taints():
    # An accelerator pool gets 100 GB by default; a CPU pool here a given 200 GB.
    for args in (
        {"instance_type": "VM.GPU.A10.1", "replicas": 1},
        {**CPU, "boot_volume_gb": 200},
    ):
        script = script_of(node_metadata(args))
        assert f"{GROW_ROOT}\n{OKE_INIT}\n" in script
        assert "--register-with-taints" not in script


def test_taints_are_in_the_metadata_the_cluster_autoscaler_reads():
    metadata = node_metadata(
        {
            "instance_type": "VM.Standard.E4.Flex",
            "ocpus": 2,
            "memory_gb": 16,
            "autoscaling": {"min_replicas": 0, "max_replicas": 3},
            "taints": ["dedicated=batch:NoSchedule", "team:NoExecute"],
            "node_config": {"max_pods": 50},
        }
    )
    flags = "--register-with-taints=dedicated=batch:NoSchedule,team:NoExecute --max-pods=50"
    # The very string the init script passes the kubelet: OKE reading the key too or not,
    # the kubelet gets the same flags.
    assert metadata["kubelet-extra-args"] == flags
    assert f'bash /var/run/oke-init.sh --kubelet-extra-args "{flags}"' in script_of(metadata)
    [registered] = AUTOSCALER_TAINTS.findall(metadata["kubelet-extra-args"])
    assert registered.split(",") == ["dedicated=batch:NoSchedule", "team:NoExecute"]


def test_max_pods_alone_is_no_autoscaler_metadata():
    metadata = node_metadata({**CPU, "node_config": {"max_pods": 50}})
    assert '--kubelet-extra-args "--max-pods=50"' in script_of(metadata)
    assert "kubelet-extra-args" not in metadata


def test_okes_own_preemptible_taint_is_never_registered():
    capture = run(lambda: GpuSpotPool("spot", {"cluster": OKE, "instance_type": "VM.GPU.A10.1"}))
    metadata = capture.get(NODE_POOL, "spot-node-pool").inputs["nodeMetadata"]
    registered = "--register-with-taints=nvidia.com/gpu=true:NoSchedule,spot=true:PreferNoSchedule"
    assert metadata["kubelet-extra-args"] == registered
    assert f'--kubelet-extra-args "{registered}"' in script_of(metadata)
    assert PREEMPTIBLE not in script_of(metadata)


def run_offline(script: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    """Run a rendered cloud-init script in `workdir`: /var/run is the directory, and OKE's
    init script a stub that records its arguments after what the user script wrote."""
    stub = '#!/bin/bash\\necho "oke-init $*" >>' + f"{workdir}/log\\n"
    assert script.count(OKE_INIT) == 1
    local = script.replace(OKE_INIT, f"printf '{stub}' >/var/run/oke-init.sh")
    local = local.replace("/var/run/", f"{workdir}/")
    assert "curl" not in local and "/var/run" not in local
    return subprocess.run(["bash", "-c", local], capture_output=True, text=True, check=False)


def test_a_failing_user_script_does_not_stop_the_node_joining(tmp_path: Path):
    script = cloud_init(
        (),
        user_script=f"#!/bin/bash\necho user >>{tmp_path}/log\nexit 3\n",
    )
    result = run_offline(script, tmp_path)
    assert result.returncode == 0, result.stderr
    # The user's script ran first, then OKE's init all the same.
    assert (tmp_path / "log").read_text() == "user\noke-init \n"
    assert "node_config.user_data script exited with status 3" in result.stderr


def test_a_user_script_runs_before_the_bootstrap(tmp_path: Path):
    script = cloud_init(
        (),
        max_pods=20,
        user_script=f"#!/bin/bash\necho user >>{tmp_path}/log\n",
    )
    result = run_offline(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "log").read_text() == "user\noke-init --kubelet-extra-args --max-pods=20\n"
    assert result.stderr == ""
