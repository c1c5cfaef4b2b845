"""Every AcceleratorStack the tests render: each example stack's (stacks/Pulumi.*.yaml, found by
glob), each engine-matrix program's (tests/engines/components.py, `AcceleratorStack/*`), the
device-plugin program of tests/controlplane/test_scheduling.py (NVIDIA device plugin and ROCm
amd-gpu charts), and one installing the GPU Operator from a chart on disk (the shared copy)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from nodepools.offline import Capture

from tests.charts.helm import SHARED_CHARTS
from tests.controlplane.test_scheduling import device_plugin_program
from tests.engines.components import COMPONENTS
from tests.engines.mocks import STACKS, example_stacks, run_on, stack_config

LOCAL_CHART = SHARED_CHARTS / "gpu-operator-v26.7.0"


def local_chart_program() -> None:
    """The GPU Operator installed from a chart folder on disk, as an air-gapped cluster's
    program would (docs/how-to/air-gapped-charts.md)."""
    from nodepools import AcceleratorStack, GpuSpotPool, MachinePool

    from tests.conftest import EKS

    gpu = GpuSpotPool("gpu", {"cluster": EKS, "instance_type": "g5.12xlarge"})
    cpu = MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1})
    AcceleratorStack(
        "local",
        {
            "platform": "eks",
            "nvidia": {"chart_path": str(LOCAL_CHART)},
            "pools": AcceleratorStack.served([gpu, cpu]),
        },
    )


def _stack(stack: str) -> Capture:
    return run_on("offline", STACKS, stack=stack, config=stack_config(stack))


def _program(build: Callable[[], None]) -> Capture:
    return run_on("offline", build)


PROGRAMS: dict[str, Callable[[], Capture]] = {
    **{f"stack {stack}": partial(_stack, stack) for stack in example_stacks()},
    **{
        f"component {key}": partial(_program, build)
        for key, build in COMPONENTS.items()
        if key.startswith("AcceleratorStack/")
    },
    "device plugins": partial(_program, device_plugin_program),
    "chart on disk": partial(_program, local_chart_program),
}


def capture_of(program: str) -> Capture:
    return PROGRAMS[program]()
