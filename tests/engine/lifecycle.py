"""Engine steps from a test: each through tests/engine/runner.py in its own process, and what
the engine recorded compared with what the offline plan records."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from nodepools.offline import Capture

from tests.controlplane.objects import integral
from tests.engine.programs import EngineProgram
from tests.engine.tools import REPO, EngineEnv, tools_dir

SECRET = "[secret]"
# The engine's marker of a secret in an exported deployment.
SECRET_SIG = "4dabf18193072939515e22adb298388d"


def stack_name(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", key).strip("-").lower()


def steps(
    engine: EngineEnv,
    program: EngineProgram,
    *names: str,
    cleanup: tuple[str, ...] = (),
    check: bool = True,
    **extra: Any,
) -> list[dict[str, Any]]:
    """Run engine steps of PROGRAM in one runner process, each `NAME` or `NAME changed` (the
    program's changed form): `preview`, `up`, `refresh`, `destroy`, `export`, `remove`; EXTRA
    goes with each step (policy packs). The steps after a failed one do not run; the CLEANUP
    steps run after them whatever happened (in the same process). Returns the results of
    NAMES then CLEANUP. Fails quoting the engine when a step fails (and CHECK)."""
    work = engine.root / "work" / stack_name(program.key)
    work.mkdir(parents=True, exist_ok=True)

    def described(name: str) -> dict[str, Any]:
        return {"step": name.split()[0], "changed": name.endswith(" changed"), **extra}

    request = {
        "key": program.key,
        "config": program.stack_config(),
        "changed_config": program.stack_config(changed=True),
        "steps": [described(name) for name in names],
        "cleanup": [described(name) for name in cleanup],
        "stack": stack_name(program.key),
        "work_dir": str(work),
        "backend": engine.env["PULUMI_BACKEND_URL"],
        "tools": str(tools_dir()),
    }
    request_path = work / "request.json"
    result_path = work / "result.json"
    request_path.write_text(json.dumps(request))
    result_path.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "tests.engine.runner", str(request_path), str(result_path)],
        cwd=REPO,
        env=engine.env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    if not result_path.exists():
        pytest.fail(
            f"{program.key}: the runner of {names + cleanup} exited {done.returncode}:\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}",
            pytrace=False,
        )
    answer: dict[str, list[dict[str, Any]]] = json.loads(result_path.read_text())
    ran = [
        *zip(names, answer["steps"], strict=False),
        *zip(cleanup, answer["cleanup"], strict=True),
    ]
    failed = [(name, r) for name, r in ran if not r["ok"]]
    if check and failed:
        name, result = failed[0]
        pytest.fail(f"{program.key}: `{name}` failed:\n{result['error']}", pytrace=False)
    return [result for _, result in ran]


def step(
    engine: EngineEnv, program: EngineProgram, name: str, *, check: bool = True, **extra: Any
) -> dict[str, Any]:
    """One engine step (see `steps`)."""
    return steps(engine, program, name, check=check, **extra)[0]


REPLACEMENT_STEPS = {"replace", "create-replacement", "delete-replaced"}


def operations(result: dict[str, Any]) -> dict[str, str]:
    """`"<type> <name>": op` of every resource the step announced: the stack itself and the
    engine's default providers left out, a replacement's steps as `replace`."""
    found: dict[str, set[str]] = {}
    for op, type_, name in result["operations"]:
        if type_ == "pulumi:pulumi:Stack" or (
            type_.startswith("pulumi:providers:") and name.startswith("default")
        ):
            continue
        found.setdefault(f"{type_} {name}", set()).add(op)
    return {
        key: "replace" if ops & REPLACEMENT_STEPS else "/".join(sorted(ops))
        for key, ops in found.items()
    }


def changed_only(result: dict[str, Any]) -> dict[str, str]:
    """The operations of a step on provider resources that are not `same` (nor a read). Our
    components are left out: one "updates" when its own inputs change, which calls no provider."""
    return {
        k: op
        for k, op in operations(result).items()
        if op not in ("same", "read") and not k.startswith("nodepools:")
    }


def only_same(changes: dict[str, Any]) -> bool:
    return all(kind == "same" for kind, n in changes.items() if n)


def _unsecret(value: Any) -> Any:
    """Secrets as SECRET (an exported deployment holds them encrypted)."""
    if isinstance(value, dict):
        if value.get(SECRET_SIG) == "1b47061264138c4ac30d75fd1eb44270":
            return SECRET
        return {k: _unsecret(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unsecret(v) for v in value]
    return value


def _mark_secrets(inputs: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    """CAPTURE's inputs with the values at its secret paths (top-level keys) as SECRET."""
    marked = dict(inputs)
    for path in paths:
        key = path.split(".")[0].split("[")[0]
        if key in marked and path == key:
            marked[key] = SECRET
    return marked


def engine_inputs(resources: list[dict[str, Any]]) -> dict[str, Any]:
    """`"<type> <name>": inputs` of the custom resources (providers left out) of a deployment."""
    return {
        f"{r['type']} {r['urn'].split('::')[-1]}": integral(_unsecret(r.get("inputs") or {}))
        for r in resources
        if r.get("custom") and not r["type"].startswith("pulumi:providers:")
    }


def offline_inputs(capture: Capture) -> dict[str, Any]:
    return {
        f"{r.type} {r.name}": integral(_mark_secrets(r.inputs, r.secret_paths))
        for r in capture.custom_resources()
        if not r.type.startswith("pulumi:providers:")
    }


def differences(engine: Any, offline: Any, path: str = "") -> list[str]:
    """Paths where the engine's recorded inputs and the offline plan's differ."""
    if isinstance(engine, dict) and isinstance(offline, dict):
        found: list[str] = []
        for key in sorted(set(engine) | set(offline)):
            where = f"{path}.{key}" if path else str(key)
            if key not in engine:
                found.append(f"{where}: only offline ({offline[key]!r:.120})")
            elif key not in offline:
                found.append(f"{where}: only in the engine ({engine[key]!r:.120})")
            else:
                found += differences(engine[key], offline[key], where)
        return found
    if isinstance(engine, list) and isinstance(offline, list) and len(engine) == len(offline):
        return [d for i, (a, b) in enumerate(zip(engine, offline, strict=True)) for d in differences(a, b, f"{path}[{i}]")]  # fmt: skip
    if engine != offline:
        return [f"{path}: engine {engine!r:.160}, offline {offline!r:.160}"]
    return []


def kinds(capture: Capture) -> Counter[str]:
    return Counter(r.type for r in capture.resources)


def live_objects(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Kubernetes objects of a deployment: (apiVersion, kind, namespace, name) from the
    outputs the provider recorded."""
    found = []
    for r in resources:
        outputs = r.get("outputs") or {}
        if r.get("custom") and r["type"].startswith("kubernetes:") and outputs.get("kind"):
            metadata = outputs.get("metadata") or {}
            found.append(
                {
                    "apiVersion": outputs["apiVersion"],
                    "kind": outputs["kind"],
                    "namespace": metadata.get("namespace"),
                    "name": metadata.get("name"),
                }
            )
    return found


def absent_objects(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Kubernetes objects of a deployment that are not on the API server of $KUBECONFIG
    (read by the runner between `up` and `destroy`)."""
    from kubernetes import config, dynamic

    kube = dynamic.DynamicClient(config.new_client_from_config())
    return [o for o in live_objects(resources) if read_object(kube, o) is None]


def read_object(kube: Any, obj: dict[str, Any]) -> Any | None:
    """The object from the API server, or None when it is not there."""
    from kubernetes.dynamic.exceptions import NotFoundError

    api = kube.resources.get(api_version=obj["apiVersion"], kind=obj["kind"])
    try:
        return kube.get(
            api, name=obj["name"], namespace=obj["namespace"] if api.namespaced else None
        )
    except NotFoundError:
        return None
