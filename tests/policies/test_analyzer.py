"""The pack through the analyzer gRPC protocol, started the way the Pulumi CLI starts it.

For a `runtime: python` pack the CLI runs `pulumi-analyzer-policy-python <engine> .
-virtualenv=<dir>` in the pack's directory, which becomes `<venv>/bin/python -u -m
pulumi.policy <engine> .`: `pulumi.policy` runs `__main__.py`, whose `PolicyPack(...)` serves
the Analyzer service on a free loopback port and prints that port on stdout. One pack process
serves the whole module; each test configures it the way the engine does before analyzing.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml
from google.protobuf import empty_pb2, json_format, struct_pb2
from nodepools.policies.configuration import reconcile_policy_config
from nodepools.policies.pack import PACK_NAME, POLICIES
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc
from pulumi_policy import EnforcementLevel
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE
from pulumi_policy.version import VERSION as PULUMI_POLICY_VERSION

from tests.policies.cases import ALL_CASES, RESOURCE_CASES, STACK_CASES
from tests.policies.fixtures import (
    Case,
    Resource,
    eks_node_group,
    well_formed_fleet,
)

POLICIES_DIR = Path(__file__).resolve().parents[2] / "policies"
# The pack never dials the engine (it logs nothing through it), so no engine is started;
# the argument is still passed because `pulumi.policy` requires it.
ENGINE_ADDRESS = "127.0.0.1:1"
STARTUP_SECONDS = 60
SHUTDOWN_SECONDS = 15
RPC_SECONDS = 20

EXPECTED_POLICIES = {
    # name: (default enforcement level, policy type, config properties)
    "accelerator-pool-tainted": ("mandatory", "resource", set()),
    "spot-pool-tainted": ("advisory", "resource", set()),
    "bare-metal-boot-volume": ("mandatory", "resource", {"minBootVolumeGb"}),
    "autoscaling-max-nodes": ("mandatory", "resource", {"maxNodes"}),
    "karpenter-limits": ("advisory", "resource", set()),
    "karpenter-spot-interruption": ("advisory", "resource", {"interruptionQueueConfigured"}),
    "spot-max-price": ("mandatory", "resource", {"maxPricePerHour"}),
    "pool-hourly-budget": ("advisory", "resource", {"maxPoolHourlyCost"}),
    "restricted-label-domains": ("mandatory", "resource", {"allowedKeys"}),
    "rosa-multi-az-replicas": ("mandatory", "resource", set()),
    "kueue-quota-within-capacity": ("mandatory", "stack", set()),
    "recipe-requests-pool-accelerators": ("mandatory", "stack", set()),
    "oke-pool-autoscaler": ("advisory", "stack", set()),
    "capacity-block-update": ("advisory", "resource", set()),
    "pool-workloads-unprivileged": (
        "mandatory",
        "resource",
        {"scope", "allowPrivileged", "allowHostNetwork"},
    ),
}


def _pack_python() -> Path:
    """The interpreter the CLI would pick: the virtualenv PulumiPolicy.yaml names."""
    project = yaml.safe_load((POLICIES_DIR / "PulumiPolicy.yaml").read_text())
    assert project["runtime"]["name"] == "python"
    venv = POLICIES_DIR / project["runtime"]["options"]["virtualenv"]
    python = venv / "bin" / "python"
    assert python.exists(), f"PulumiPolicy.yaml names virtualenv {venv}, which has no bin/python"
    return python


def _read_port(process: subprocess.Popen[bytes], stderr_path: str) -> int:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + STARTUP_SECONDS
    line = b""
    while not line.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not selector.select(timeout=remaining):
            break
        chunk = os.read(process.stdout.fileno(), 64)
        if not chunk:
            break
        line += chunk
    selector.close()
    if not line.strip().isdigit():
        process.kill()
        process.wait(timeout=SHUTDOWN_SECONDS)
        stderr = Path(stderr_path).read_text(errors="replace")
        pytest.fail(f"policy pack printed {line!r} instead of a port; stderr:\n{stderr}")
    return int(line)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(scope="module")
def analyzer() -> Iterator[analyzer_pb2_grpc.AnalyzerStub]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
    with tempfile.NamedTemporaryFile(prefix="policy-pack-", suffix=".stderr") as stderr:
        process = subprocess.Popen(
            [str(_pack_python()), "-u", "-m", "pulumi.policy", ENGINE_ADDRESS, "."],
            cwd=POLICIES_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            # A job started in the background by a non-interactive shell (as CI may run
            # `make test`) inherits SIGINT ignored, and Python then never raises
            # KeyboardInterrupt: give the pack the default disposition, as a terminal would.
            preexec_fn=_default_sigint,
        )
        port = _read_port(process, stderr.name)
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        try:
            grpc.channel_ready_future(channel).result(timeout=RPC_SECONDS)
            yield analyzer_pb2_grpc.AnalyzerStub(channel)
        finally:
            channel.close()
            # The pack stops its server on KeyboardInterrupt and exits normally.
            process.send_signal(signal.SIGINT)
            try:
                code = process.wait(timeout=SHUTDOWN_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=SHUTDOWN_SECONDS)
                pytest.fail(f"policy pack ignored SIGINT for {SHUTDOWN_SECONDS}s")
            assert code == 0, Path(stderr.name).read_text(errors="replace")


def _struct(values: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(values)
    return struct


def configure(stub: Any, config: dict[str, Any]) -> None:
    """Send what the engine sends for `--policy-pack-config`: every policy, defaults merged."""
    settings = reconcile_policy_config(POLICIES, config)
    request = analyzer_pb2.ConfigureAnalyzerRequest(
        policyConfig={
            name: analyzer_pb2.PolicyConfig(
                enforcementLevel=analyzer_pb2.EnforcementLevel.Value(
                    setting.enforcement_level.value.upper()
                ),
                properties=_struct(setting.properties),
            )
            for name, setting in settings.items()
        }
    )
    stub.Configure(request, timeout=RPC_SECONDS)


def analyze(stub: Any, resource: Resource) -> list[analyzer_pb2.AnalyzeDiagnostic]:
    request = analyzer_pb2.AnalyzeRequest(
        urn=resource.urn,
        type=resource.type,
        name=resource.name,
        properties=_struct(resource.props),
        options=analyzer_pb2.AnalyzerResourceOptions(),
    )
    return list(stub.Analyze(request, timeout=RPC_SECONDS).diagnostics)


def analyze_stack(stub: Any, resources: tuple[Resource, ...]) -> list[Any]:
    request = analyzer_pb2.AnalyzeStackRequest(
        resources=[
            analyzer_pb2.AnalyzerResource(
                urn=r.urn,
                type=r.type,
                name=r.name,
                properties=_struct(r.props),
                options=analyzer_pb2.AnalyzerResourceOptions(),
            )
            for r in resources
        ]
    )
    return list(stub.AnalyzeStack(request, timeout=RPC_SECONDS).diagnostics)


def _level(diagnostic: Any) -> str:
    return analyzer_pb2.EnforcementLevel.Name(diagnostic.enforcementLevel).lower()


def test_analyzer_info_lists_every_policy_with_level_and_config_schema(analyzer):
    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty(), timeout=RPC_SECONDS)

    assert info.name == PACK_NAME
    assert info.supportsConfig
    found = {}
    for policy in info.policies:
        schema = json_format.MessageToDict(policy.configSchema.properties)
        kind = "stack" if policy.policy_type == analyzer_pb2.POLICY_TYPE_STACK else "resource"
        level = analyzer_pb2.EnforcementLevel.Name(policy.enforcementLevel).lower()
        found[policy.name] = (level, kind, set(schema))
        assert policy.description.endswith("."), policy.name
    assert found == EXPECTED_POLICIES


def test_analyzer_info_carries_schema_defaults(analyzer):
    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty(), timeout=RPC_SECONDS)
    schemas = {p.name: json_format.MessageToDict(p.configSchema.properties) for p in info.policies}

    assert schemas["autoscaling-max-nodes"]["maxNodes"]["default"] == 100
    assert schemas["spot-max-price"]["maxPricePerHour"]["default"] == 100
    assert schemas["bare-metal-boot-volume"]["minBootVolumeGb"]["default"] == 50
    assert schemas["pool-workloads-unprivileged"]["scope"]["enum"] == [
        "pool-workloads",
        "all-workloads",
    ]


def test_engine_boot_sequence(analyzer):
    # The order the engine follows: Handshake (a pack that doesn't implement it is run the
    # legacy way), ConfigureStack, GetPluginInfo, GetAnalyzerInfo, Configure, Analyze.
    try:
        analyzer.Handshake(
            analyzer_pb2.AnalyzerHandshakeRequest(engine_address=ENGINE_ADDRESS),
            timeout=RPC_SECONDS,
        )
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.UNIMPLEMENTED
    analyzer.ConfigureStack(
        analyzer_pb2.AnalyzerStackConfigureRequest(
            stack="dev", project="nodepools", organization="org", dry_run=True
        ),
        timeout=RPC_SECONDS,
    )
    plugin = analyzer.GetPluginInfo(empty_pb2.Empty(), timeout=RPC_SECONDS)
    assert plugin.version == PULUMI_POLICY_VERSION
    analyzer.GetAnalyzerInfo(empty_pb2.Empty(), timeout=RPC_SECONDS)
    configure(analyzer, {})

    diagnostics = analyze(analyzer, eks_node_group(taints=[]))

    assert [(d.policyName, _level(d), d.policyPackName) for d in diagnostics] == [
        ("accelerator-pool-tainted", "mandatory", PACK_NAME)
    ]


@pytest.mark.parametrize("case", RESOURCE_CASES, ids=lambda c: c.id)
def test_resource_policy_case(analyzer, case: Case):
    configure(analyzer, case.config)

    diagnostics = [
        d for r in case.resources for d in analyze(analyzer, r) if d.policyName == case.policy
    ]

    assert len(diagnostics) == case.violations, [d.message for d in diagnostics]
    level = reconcile_policy_config(POLICIES, case.config)[case.policy].enforcement_level
    for diagnostic in diagnostics:
        assert case.mentions in diagnostic.message
        assert _level(diagnostic) == level.value


@pytest.mark.parametrize("case", STACK_CASES, ids=lambda c: c.id)
def test_stack_policy_case(analyzer, case: Case):
    configure(analyzer, case.config)

    diagnostics = [
        d for d in analyze_stack(analyzer, case.resources) if d.policyName == case.policy
    ]

    assert len(diagnostics) == case.violations, [d.message for d in diagnostics]
    urns = {r.urn for r in case.resources}
    for diagnostic in diagnostics:
        assert case.mentions in diagnostic.message
        assert diagnostic.urn in urns


def test_well_formed_fleet_passes_every_policy(analyzer):
    configure(analyzer, {})
    fleet = well_formed_fleet()

    diagnostics = [d for r in fleet for d in analyze(analyzer, r)] + analyze_stack(analyzer, fleet)

    assert [(d.policyName, d.message) for d in diagnostics] == []


def test_configure_sets_threshold_and_level(analyzer):
    pool = eks_node_group(max_size=3.0)
    configure(analyzer, {"autoscaling-max-nodes": {"enforcementLevel": "advisory", "maxNodes": 2}})

    diagnostics = [d for d in analyze(analyzer, pool) if d.policyName == "autoscaling-max-nodes"]

    assert [(_level(d), "ceiling of 2" in d.message) for d in diagnostics] == [("advisory", True)]


def test_configure_disables_policies(analyzer):
    pool = eks_node_group(taints=[], labels={"kubernetes.io/role": "gpu"})
    configure(analyzer, {"all": "disabled", "restricted-label-domains": "advisory"})

    diagnostics = analyze(analyzer, pool)

    assert [(d.policyName, _level(d)) for d in diagnostics] == [
        ("restricted-label-domains", "advisory")
    ]


def test_unknown_value_during_preview_is_reported_as_advisory(analyzer):
    configure(analyzer, {})
    pool = eks_node_group()
    pool.props["scalingConfig"]["maxSize"] = UNKNOWN_NUMBER_VALUE

    diagnostics = [d for d in analyze(analyzer, pool) if d.policyName == "autoscaling-max-nodes"]

    assert len(diagnostics) == 1
    assert _level(diagnostics[0]) == EnforcementLevel.ADVISORY.value
    assert "can't be known during preview" in diagnostics[0].message


def test_every_policy_has_a_passing_and_a_failing_case():
    covered = {(c.policy, c.violations > 0) for c in ALL_CASES}

    assert covered == {(name, fails) for name in EXPECTED_POLICIES for fails in (False, True)}
