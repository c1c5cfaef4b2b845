"""Run a Pulumi program (a file or a callable) under the mock monitor and capture it all.

Every registration is recorded as the engine would see it: type, name, inputs (camelCase,
numbers as floats, secrets unwrapped but flagged), parent, dependencies and options; plus
each component's registered outputs and the stack outputs. Users unit test their own
stacks with this; our tests and `python -m nodepools plan` use it too.

`pulumi.runtime.set_mocks` is process-global, so each `run` installs its own monitor and
must not overlap another run in the same process.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import runpy
import sys
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pulumi
from google.protobuf import json_format
from nodepools.offline.mocks import OfflineMocks
from nodepools.specs.core.base import format_path
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc, settings
from pulumi.runtime.config import set_all_config
from pulumi.runtime.proto import engine_pb2, resource_pb2
from pulumi.runtime.stack import run_in_stack

# The engine's marker of a secret value and the key it sits under: the SDK's wire format,
# exported under private names only.
SECRET_SIG: str = rpc._special_secret_sig  # pyright: ignore[reportPrivateUsage]
SIG_KEY: str = rpc._special_sig_key  # pyright: ignore[reportPrivateUsage]


@dataclass(frozen=True)
class CapturedResource:
    """One registration, as the engine received it."""

    urn: str
    type: str
    name: str
    inputs: dict[str, Any]
    parent: str | None
    custom: bool
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, tuple[str, ...]] = field(
        default_factory=dict[str, tuple[str, ...]]
    )
    provider: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict[str, Any])
    secret_paths: tuple[str, ...] = ()
    # Inputs known only after apply (an unresolved StackReference output, another
    # resource's output in preview): None in `inputs`, listed here by path.
    unknown_paths: tuple[str, ...] = ()
    outputs: dict[str, Any] = field(default_factory=dict)

    @property
    def is_component(self) -> bool:
        return not self.custom


@dataclass
class Capture:
    """Everything a program registered.

    `resources` is in tree order: each parent before its children, siblings sorted by
    (type, name). Not the order the engine received them: the SDK registers from worker
    threads, so that order changes between runs, and tests that index into it would flake.
    """

    project: str
    stack: str
    resources: list[CapturedResource] = field(default_factory=list)
    component_outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    stack_outputs: dict[str, Any] = field(default_factory=dict)
    # Paths (as CapturedResource's) of the stack outputs that are secret or not yet known.
    stack_output_secrets: set[str] = field(default_factory=set[str])
    stack_output_unknowns: set[str] = field(default_factory=set[str])
    logs: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    # What `python -m nodepools plan` passes its report sections (e.g. the policy config).
    plan_context: dict[str, Any] = field(default_factory=dict[str, Any])

    def by_type(self, type_: str) -> list[CapturedResource]:
        return [r for r in self.resources if r.type == type_]

    def get(self, type_: str, name: str) -> CapturedResource:
        for resource in self.resources:
            if resource.type == type_ and resource.name == name:
                return resource
        raise KeyError(f"no {type_} named {name!r} was registered")

    def children(self, urn: str) -> list[CapturedResource]:
        return [r for r in self.resources if r.parent == urn]

    def descendants(self, urn: str) -> Iterator[CapturedResource]:
        for child in self.children(urn):
            yield child
            yield from self.descendants(child.urn)

    def custom_resources(self) -> list[CapturedResource]:
        return [r for r in self.resources if r.custom]

    def components(self, type_: str | None = None) -> list[CapturedResource]:
        return [r for r in self.resources if not r.custom and (type_ is None or r.type == type_)]

    def outputs_of(self, resource: CapturedResource) -> dict[str, Any]:
        return self.component_outputs.get(resource.urn, {})


class ProgramError(Exception):
    """The program failed; `capture` holds what it registered before failing."""

    def __init__(self, cause: BaseException, capture: Capture):
        self.cause = cause
        self.capture = capture
        super().__init__(str(cause))


def _find_secret_paths(value: Any, loc: tuple[Any, ...] = ()) -> list[str]:
    """Paths of the secrets in `value`, as `a.b[0]["config.json"]` (keys that aren't plain
    names are quoted, so a path always splits back into the keys it was made of)."""
    found: list[str] = []
    if isinstance(value, dict):
        mapping = cast("dict[str, Any]", value)
        if mapping.get(SIG_KEY) == SECRET_SIG:
            return [format_path(loc)]
        for key, item in mapping.items():
            found += _find_secret_paths(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(cast("list[Any]", value)):
            found += _find_secret_paths(item, (*loc, index))
    return found


def _find_unknown_paths(value: Any, loc: tuple[Any, ...] = ()) -> list[str]:
    """Paths of the unknown values in deserialized properties (secrets looked through)."""
    if value is rpc.UNKNOWN or type(value).__name__ == "Unknown":
        return [format_path(loc)]
    found: list[str] = []
    if isinstance(value, dict):
        mapping = cast("dict[str, Any]", value)
        if mapping.get(SIG_KEY) == SECRET_SIG:
            return _find_unknown_paths(mapping.get("value"), loc)
        for key, item in mapping.items():
            found += _find_unknown_paths(item, (*loc, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(cast("list[Any]", value)):
            found += _find_unknown_paths(item, (*loc, index))
    return found


class CapturingMonitor(pulumi_mocks.MockMonitor):
    """The SDK's mock monitor, recording each request before answering it."""

    def __init__(self, mocks: pulumi.runtime.Mocks, capture: Capture):
        super().__init__(mocks)
        self.capture = capture
        self._lock = threading.Lock()
        self._thread_loops: list[asyncio.AbstractEventLoop] = []

    def _thread_loop(self) -> None:
        # The SDK's mock monitor needs an event loop in each worker thread and makes one it
        # never closes; left to the garbage collector, those loops are finalised at
        # interpreter exit after their sockets ("Exception ignored in BaseEventLoop.__del__
        # ... Invalid file descriptor"). Made here instead, they are closed after the run.
        try:
            asyncio.get_event_loop()
        except RuntimeError:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            with self._lock:
                self._thread_loops.append(loop)

    def close_thread_loops(self) -> None:
        with self._lock:
            loops, self._thread_loops = self._thread_loops, []
        for loop in loops:
            if not loop.is_running():
                loop.close()

    # The SDK's MockMonitor methods are unannotated (requests and responses are its protobuf
    # messages): the members are typed here, the calls to the base class cast.
    def Invoke(self, request: resource_pb2.ResourceInvokeRequest) -> Any:
        self._thread_loop()
        return super().Invoke(request)  # pyright: ignore[reportUnknownMemberType]

    def ReadResource(self, request: resource_pb2.ReadResourceRequest) -> Any:
        self._thread_loop()
        return super().ReadResource(request)  # pyright: ignore[reportUnknownMemberType]

    def RegisterResource(
        self, request: resource_pb2.RegisterResourceRequest
    ) -> resource_pb2.RegisterResourceResponse:
        self._thread_loop()
        response: resource_pb2.RegisterResourceResponse = super().RegisterResource(request)  # pyright: ignore[reportUnknownMemberType]
        if request.type == "pulumi:pulumi:Stack":
            return response
        raw = json_format.MessageToDict(request.object)
        inputs = rpc.deserialize_properties(request.object, keep_unknowns=True)
        outputs = self.resources.get(response.urn)
        options = {
            "protect": request.protect if request.HasField("protect") else False,
            "ignoreChanges": list(request.ignoreChanges),
            "replaceOnChanges": list(request.replaceOnChanges),
            "additionalSecretOutputs": list(request.additionalSecretOutputs),
            "deleteBeforeReplace": request.deleteBeforeReplace,
            "retainOnDelete": request.retainOnDelete
            if request.HasField("retainOnDelete")
            else False,
            "importId": request.importId,
            # The generated stub names the Alias message by a module path that does not
            # resolve (`pulumi.alias_pb2`), so the repeated field's element type is unknown.
            "aliases": [
                json_format.MessageToDict(alias)  # pyright: ignore[reportUnknownArgumentType]
                for alias in request.aliases  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            ],
            "customTimeouts": json_format.MessageToDict(request.customTimeouts),
            "version": request.version,
        }
        plain_inputs: dict[str, Any] = _plain(inputs)
        _with_sent_nulls(plain_inputs, _plain(raw))
        resource = CapturedResource(
            urn=response.urn,
            type=request.type,
            name=request.name,
            inputs=plain_inputs,
            parent=request.parent or None,
            custom=bool(request.custom),
            dependencies=tuple(request.dependencies),
            property_dependencies={
                key: tuple(deps.urns) for key, deps in request.propertyDependencies.items()
            },
            provider=request.provider or None,
            options=options,
            secret_paths=tuple(_find_secret_paths(raw)),
            unknown_paths=tuple(_find_unknown_paths(inputs)),
            outputs=_plain(outputs.state) if outputs else {},  # pyright: ignore[reportUnknownMemberType] (the SDK's ResourceRegistration.state is a bare dict)
        )
        with self._lock:
            self.capture.resources.append(resource)
        return response

    def RegisterResourceOutputs(self, request: resource_pb2.RegisterResourceOutputsRequest) -> Any:
        deserialized = rpc.deserialize_properties(request.outputs, keep_unknowns=True)
        outputs = _plain(deserialized)
        with self._lock:
            if request.urn.split("::")[-2].endswith("pulumi:pulumi:Stack"):
                # The stack's outputs can arrive in more than one call (the SDK also
                # finishes the root stack that `set_mocks` makes), in either order.
                self.capture.stack_outputs.update(outputs)
                raw = json_format.MessageToDict(request.outputs)
                self.capture.stack_output_secrets.update(_find_secret_paths(raw))
                self.capture.stack_output_unknowns.update(_find_unknown_paths(deserialized))
            else:
                self.capture.component_outputs[request.urn] = outputs
        return super().RegisterResourceOutputs(request)  # pyright: ignore[reportUnknownMemberType]


class _CapturingEngine(pulumi_mocks.MockEngine):
    def __init__(self, capture: Capture):
        super().__init__(None)
        self.capture = capture

    def Log(self, request: engine_pb2.LogRequest) -> None:
        severity = {0: "debug", 1: "info", 2: "warning", 3: "error"}.get(request.severity, "info")
        self.capture.logs.append((severity, request.message))
        super().Log(request)  # pyright: ignore[reportUnknownMemberType]


def _plain(value: Any) -> Any:
    """Deserialized properties as JSON-like data (secrets unwrapped, unknowns None)."""
    if isinstance(value, dict):
        mapping = cast("dict[str, Any]", value)
        if mapping.get(SIG_KEY) == SECRET_SIG:
            return _plain(mapping.get("value"))
        return {key: _plain(item) for key, item in mapping.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in cast("list[Any] | tuple[Any, ...]", value)]
    if value is rpc.UNKNOWN or type(value).__name__ == "Unknown":
        return None
    return value


def _with_sent_nulls(value: Any, raw: Any) -> None:
    """Put into `value` the nested nulls the program sent (`raw`, the request as JSON), which
    the SDK's deserializer drops: a Helm value set to null removes a chart default, so
    artifacts and tests must see it."""
    if isinstance(value, dict) and isinstance(raw, dict):
        mapping = cast("dict[str, Any]", value)
        for key, item in cast("dict[str, Any]", raw).items():
            if key in mapping:
                _with_sent_nulls(mapping[key], item)
            elif item is None:
                mapping[key] = None
    elif isinstance(value, list) and isinstance(raw, list):
        for item, sent in zip(cast("list[Any]", value), cast("list[Any]", raw), strict=False):
            _with_sent_nulls(item, sent)


def _config_entries(project: str, config: Mapping[str, Any] | None) -> dict[str, str]:
    """Stack-file config (`ns:key: value`) as the engine passes it: strings, JSON for objects."""
    entries: dict[str, str] = {}
    for key, value in (config or {}).items():
        full_key = key if ":" in key else f"{project}:{key}"
        if isinstance(value, dict) and set(cast("dict[str, Any]", value)) == {"secure"}:
            raise ValueError(
                f"`{full_key}` is an encrypted secret, which can't be decrypted offline; give "
                "its plaintext to offline runs"
            )
        entries[full_key] = value if isinstance(value, str) else json.dumps(value)
    return entries


def run(
    program: Callable[[], Any] | str | Path,
    *,
    project: str = "nodepools",
    stack: str = "dev",
    config: Mapping[str, Any] | None = None,
    mocks: pulumi.runtime.Mocks | None = None,
    preview: bool = True,
    secret_keys: Iterable[str] = (),
) -> Capture:
    """Run `program` (a callable, or the path of a Pulumi program file or folder) offline.

    Raises ProgramError (with the partial capture) when the program fails.
    """
    capture = Capture(project=project, stack=stack)
    monitor = CapturingMonitor(mocks or OfflineMocks(), capture)
    func = _as_callable(program)
    # The loop must exist before the runtime is configured: the SDK binds futures to
    # the current loop as resources are created.
    loop = asyncio.new_event_loop()
    previous_loop = _current_loop()
    asyncio.set_event_loop(loop)
    settings.reset_options(project=project, stack=stack, preview=preview)
    pulumi.runtime.set_mocks(monitor.mocks, project, stack, preview, monitor=monitor)
    # The SDK's own Settings.__init__ assigns `engine` the same way (any object with Log);
    # its contextproperty is typed as the gRPC stub only.
    settings.SETTINGS.engine = _CapturingEngine(capture)  # pyright: ignore[reportAttributeAccessIssue]
    set_all_config(_config_entries(project, config), sorted(secret_keys))
    # set_mocks made a root stack of its own; run_in_stack makes the one we want. (None
    # clears it, as the SDK itself does; its annotation omits Optional.)
    settings.set_root_resource(None)  # pyright: ignore[reportArgumentType]
    failed = True
    try:
        with _no_full_collections():
            loop.run_until_complete(run_in_stack(func))
    except BaseException as exc:
        failed = True
        raise ProgramError(exc, capture) from exc
    else:
        failed = False
    finally:
        capture.resources[:] = tree_order(capture.resources)
        loop.close()
        monitor.close_thread_loops()
        asyncio.set_event_loop(previous_loop)
        settings.set_root_resource(None)  # pyright: ignore[reportArgumentType]
        if failed:
            # A failed program leaves futures whose errors were never retrieved; collected
            # later, from whatever thread the next run's collection happens in, several
            # threads format their tracebacks at once, which corrupts CPython 3.11's
            # (thread-unsafe) AST recursion counter: "SystemError: AST constructor recursion
            # depth mismatch" in some later, unrelated compile. Collect them here, now.
            gc.collect()
    return capture


def tree_order(resources: list[CapturedResource]) -> list[CapturedResource]:
    """Parents before children, siblings by (type, name): the same for every run."""
    by_urn = {resource.urn: resource for resource in resources}

    def lineage(resource: CapturedResource) -> tuple[tuple[str, str], ...]:
        chain = [(resource.type, resource.name)]
        seen = {resource.urn}
        parent = by_urn.get(resource.parent or "")
        while parent is not None and parent.urn not in seen:
            seen.add(parent.urn)
            chain.append((parent.type, parent.name))
            parent = by_urn.get(parent.parent or "")
        return tuple(reversed(chain))

    return sorted(resources, key=lineage)


# Large enough that the oldest generation is never collected automatically.
_NEVER = 2**30


@contextlib.contextmanager
def _no_full_collections() -> Generator[None, None, None]:
    """Keep the garbage collector to its young generations while a program runs.

    The SDK keeps every resource, Output and future of a program alive until the program
    ends, so each full collection walks a heap that only grows and finds next to nothing,
    and the cost per registration would grow with the fleet. Short-lived cycles (asyncio
    tasks and callbacks) are still collected young; what survives is left to the first
    full collection after the run.
    """
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, _NEVER)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)


def _current_loop() -> asyncio.AbstractEventLoop | None:
    try:
        # Deprecated from Python 3.14 only; the supported floor is 3.11, where it is how to read
        # the current loop without creating one.
        return asyncio.get_event_loop_policy().get_event_loop()  # pyright: ignore[reportDeprecated]
    except RuntimeError:
        return None


def _as_callable(program: Callable[[], Any] | str | Path) -> Callable[[], Any]:
    if callable(program):
        return program
    path = Path(program)
    if path.is_dir():
        path = path / "__main__.py"
    if not path.is_file():
        raise FileNotFoundError(f"no Pulumi program at {path}")

    def run_file() -> None:
        sys.path.insert(0, str(path.parent))
        try:
            runpy.run_path(str(path), run_name="__main__")
        finally:
            sys.path.remove(str(path.parent))

    return run_file
