"""The programs the real engine runs: component programs and example-stack parts whose every
resource is a Kubernetes object or one of our dynamic providers.

Found, not listed: every program of the engine matrix (tests/engines/components.py) and every
section of every example stack (stacks/Pulumi.*.yaml, each entry on its own) is run offline
first; what registers anything else is skipped with the reason:
- AWS and OCI resources: no registry serves their provider plugins, so they stay under mocks
  (tests/engines); never faked here;
- a Helm `Release`: its chart is not served here (no chart repository is reachable);
- a program whose inputs are known only after another resource's apply.

ROSA pools reach the fake OCM and OSMO documents the fake OSMO: their URLs come from the
environment (`OCM_URL_VARIABLE`, `OSMO_URL`), put into the ROSA cluster targets before the program
runs, offline and in the engine alike, so both register the same inputs.
"""

from __future__ import annotations

import copy
import os
import runpy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from nodepools.offline import Capture, ProgramError

from tests.engines import components
from tests.engines.mocks import STACKS, example_stacks, run_on

OCM_URL_VARIABLE = "NODEPOOLS_ENGINE_OCM_URL"
SSO_PATH = "/auth/realms/redhat-external/protocol/openid-connect/token"
ENGINE_TYPES = ("kubernetes:", "pulumi:providers:kubernetes", "pulumi-python:dynamic")
NOT_SERVED = {
    "kubernetes:helm.sh/v3:Release": "a Helm Release needs its chart, not served here",
    "kubernetes:helm.sh/v4:Chart": "a Helm Chart needs its chart, not served here",
}

# Kinds the Kubernetes provider awaits until their pods run (no skipAwait annotation): no
# kubelet runs here, so an `up` would wait out the provider's timeout.
AWAITED = {
    f"kubernetes:{kind}": "the provider awaits its pods, and no kubelet runs here"
    for kind in (
        "apps/v1:Deployment",
        "apps/v1:StatefulSet",
        "apps/v1:DaemonSet",
        "core/v1:Service",
        "core/v1:Pod",
        "batch/v1:Job",
    )
}


def _skips_await(inputs: dict[str, Any]) -> bool:
    annotations = (inputs.get("metadata") or {}).get("annotations") or {}
    return annotations.get("pulumi.com/skipAwait") == "true"


def why_not(capture: Capture) -> str | None:
    """Why the real engine can't run what CAPTURE registered, or None."""
    reasons: set[str] = set()
    cloud: set[str] = set()
    for resource in capture.custom_resources():
        if resource.type in NOT_SERVED:
            reasons.add(f"{resource.type}: {NOT_SERVED[resource.type]}")
        elif not resource.type.startswith(ENGINE_TYPES):
            cloud.add(resource.type)
        elif resource.type in AWAITED and not _skips_await(resource.inputs):
            reasons.add(f"{resource.type}: {AWAITED[resource.type]}")
        elif resource.unknown_paths:
            reasons.add(f"{resource.type} {resource.name}: inputs known only after apply")
    if cloud:
        reasons.add(
            f"{', '.join(sorted(cloud))}: AWS and OCI resources stay under mocks (no provider "
            "plugin is served; never faked)"
        )
    return "; ".join(sorted(reasons)) or None


def point_rosa_at_fake(target: dict[str, Any]) -> None:
    """A ROSA cluster target, in place, pointed at the fake OCM of the environment."""
    url = os.environ.get(OCM_URL_VARIABLE)
    if url and target.get("kind") == "rosa":
        target.update(api_url=url, sso_url=url + SSO_PATH)


@dataclass(frozen=True)
class EngineProgram:
    """A program, its stack config, and one change of input with the operation the engine must
    plan for each resource it touches (`"<type> <name>": op`; every other resource: same)."""

    key: str
    program: Callable[[], None]
    config: dict[str, Any] = field(default_factory=dict[str, Any])
    changed_program: Callable[[], None] | None = None
    changed_config: dict[str, Any] | None = None
    expected_change: dict[str, str] = field(default_factory=dict[str, str])

    def run(self, changed: bool = False) -> None:
        """The program (its changed form when CHANGED), the ROSA target of the matrix pointed at
        the fake OCM while it runs (restored after: other tests read the same dict)."""
        program = self.changed_program if changed and self.changed_program else self.program
        saved = dict(components.ROSA)
        point_rosa_at_fake(components.ROSA)
        try:
            program()
        finally:
            components.ROSA.clear()
            components.ROSA.update(saved)

    def stack_config(self, changed: bool = False) -> dict[str, Any]:
        config = copy.deepcopy(
            self.changed_config if changed and self.changed_config is not None else self.config
        )
        for target in (config.get("nodepools:clusters") or {}).values():
            point_rosa_at_fake(target)
        return config

    def offline(self, changed: bool = False) -> Capture:
        """What the offline plan records for this program."""
        return run_on(
            "offline",
            lambda: self.run(changed),
            project="nodepools",
            stack="engine",
            config=self.stack_config(changed),
        )


def run_stack_program() -> None:
    runpy.run_path(str(STACKS / "__main__.py"), run_name="__main__")


# Changed inputs, each with what the engine must do (the replacement review's reading: a
# Kubernetes object keeps its name and is patched; a ROSA pool's instance type is immutable in
# OCM, so the dynamic provider's diff replaces it, delete-before-replace as it keeps its id).
def _karpenter_changed() -> None:
    from nodepools import KarpenterNodePool

    KarpenterNodePool("gpu", {**components.KARPENTER_GPU, "limits": {"nvidia.com/gpu": 16}})
    KarpenterNodePool("existing", {"node_class_name": "default"})


def _rosa_changed() -> None:
    from nodepools import GpuSpotPool, MachinePool

    batch = {"cluster": components.ROSA, "instance_type": "m5.4xlarge", **components.AUTOSCALED}
    MachinePool("batch", batch)
    GpuSpotPool("gpu", {"cluster": components.ROSA, "instance_type": "p3.2xlarge"})


CHANGES: dict[str, tuple[Callable[[], None], dict[str, str]]] = {
    "KarpenterNodePool": (
        _karpenter_changed,
        {"kubernetes:karpenter.sh/v1:NodePool gpu-node-pool": "update"},
    ),
    "MachinePool/rosa": (
        _rosa_changed,
        {"pulumi-python:dynamic/ocm:MachinePool batch-machine-pool": "replace"},
    ),
}


def component_programs() -> dict[str, EngineProgram]:
    programs: dict[str, EngineProgram] = {}
    for key, program in components.COMPONENTS.items():
        changed, expected = CHANGES.get(key, (None, {}))
        programs[f"component {key}"] = EngineProgram(
            key=f"component {key}",
            program=program,
            changed_program=changed,
            expected_change=expected,
        )
    return programs


def _stack_document(stack: str) -> dict[str, Any]:
    return (yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text()) or {}).get("config") or {}


# Stack parts' changed config: (stack, section) -> (change in place, expected operations).
def _more_quota(config: dict[str, Any]) -> None:
    quotas = config["nodepools:governance"][0]["departments"][0]["projects"][0]["quotas"]
    quotas["default"]["gpu"] += 1


def _osmo_template(config: dict[str, Any]) -> None:
    selector = config["nodepools:governance"][0]["pod_templates"]["l40s"]["spec"]["nodeSelector"]
    selector["nvidia.com/gpu.product"] = "NVIDIA-L40S-48GB"


STACK_CHANGES: dict[tuple[str, str], tuple[Callable[[dict[str, Any]], None], dict[str, str]]] = {
    ("org-quotas", "nodepools:governance"): (
        _more_quota,
        {
            "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue org-clusterqueue-build": "update",
            # the GPU `build` is now guaranteed is one the root Cohort no longer lends
            "kubernetes:kueue.x-k8s.io/v1beta2:Cohort org-cohort": "update",
        },
    ),
    ("osmo-platforms", "nodepools:governance"): (
        _osmo_template,
        {"pulumi-python:dynamic/osmo:Config shared-pool-osmo-pod_template-l40s": "update"},
    ),
}


def stack_sections() -> list[tuple[str, str]]:
    """(stack, section) for every section of every example stack but its clusters (data)."""
    return [
        (stack, section)
        for stack in example_stacks()
        for section in sorted(_stack_document(stack))
        if section != "nodepools:clusters"
    ]


def stack_part(stack: str, section: str) -> tuple[EngineProgram | None, dict[str, str]]:
    """The stack's part of SECTION the engine can run (its entries that register only
    Kubernetes objects or dynamic-provider resources), and {entry: why not} for the others."""
    document = _stack_document(stack)
    base = {k: v for k, v in document.items() if k == "nodepools:clusters"}
    runnable: list[Any] = []
    skipped: dict[str, str] = {}
    for entry in document[section]:
        part = EngineProgram(key="", program=run_stack_program, config={**base, section: [entry]})
        try:
            reason = why_not(part.offline())
        except ProgramError as error:
            # e.g. devices serving the stack's pools: it runs only with them, which it can't
            reason = (
                f"runs only with entries of other sections ({str(error).splitlines()[-1].strip()})"
            )
        if reason:
            skipped[f"{stack} {section} {entry.get('name')}"] = reason
        else:
            runnable.append(entry)
    if not runnable:
        return None, skipped
    config = {**base, section: runnable}
    change, expected = STACK_CHANGES.get((stack, section), (None, {}))
    changed_config = None
    if change:
        changed_config = copy.deepcopy(config)
        change(changed_config)
    program = EngineProgram(
        key=f"stack {stack} {section}",
        program=run_stack_program,
        config=config,
        changed_config=changed_config,
        expected_change=expected,
    )
    return program, skipped


def inline_program(key: str, changed: bool) -> Callable[[], None]:
    """What the Automation API runs for KEY (`component <matrix key>` or `stack <stack>
    <section>`, whose config the caller sets): never runs anything offline, as the offline
    engine's mocks are process-global."""
    if key.startswith("stack "):
        return run_stack_program
    program = component_programs()[key]
    return lambda: program.run(changed)
