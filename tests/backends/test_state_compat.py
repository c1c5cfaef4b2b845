"""Dynamic providers pickled into existing state still load after modules move.

The engine unpickles a dynamic provider from the `__provider` string in each resource's
state, by module path. The strings below are what `serialize_provider` wrote for our two
providers while they lived in `nodepools.backends.rosa` and `nodepools.backends.osmo`
(0.1); a stack with such state must keep working after the backends moved into
per-domain packages.
"""

from __future__ import annotations

import base64

import dill  # what pulumi.dynamic's provider host loads `__provider` with
import pytest
from nodepools.backends.governance.osmo import OsmoConfigProvider
from nodepools.backends.rosa.machine_pool import OcmMachinePoolProvider
from pulumi.dynamic.dynamic import serialize_provider

STATE_0_1 = {
    "rosa, default options": (
        "gASVUQAAAAAAAACMF25vZGVwb29scy5iYWNrZW5kcy5yb3NhlIwWT2NtTWFjaGluZVBvb2xQcm92aWRlcpSTlCmBlH2U"
        "jA9fY2xpZW50X29wdGlvbnOUfZRzYi4=",
        OcmMachinePoolProvider,
        {},
    ),
    "rosa, client options": (
        "gASVhAAAAAAAAACMF25vZGVwb29scy5iYWNrZW5kcy5yb3NhlIwWT2NtTWFjaGluZVBvb2xQcm92aWRlcpSTlCmBlH2U"
        "jA9fY2xpZW50X29wdGlvbnOUfZQojAxtYXhfYXR0ZW1wdHOUSwKMB3RpbWVvdXSUR0AAAAAAAAAAjAl0cnVzdF9lbnaU"
        "iXVzYi4=",
        OcmMachinePoolProvider,
        {"max_attempts": 2, "timeout": 2.0, "trust_env": False},
    ),
    "osmo, default options": (
        "gASVTQAAAAAAAACMF25vZGVwb29scy5iYWNrZW5kcy5vc21vlIwST3Ntb0NvbmZpZ1Byb3ZpZGVylJOUKYGUfZSMD19j"
        "bGllbnRfb3B0aW9uc5R9lHNiLg==",
        OsmoConfigProvider,
        {},
    ),
}


@pytest.mark.parametrize("case", sorted(STATE_0_1))
def test_providers_pickled_at_their_old_module_paths_still_load(case: str) -> None:
    blob, cls, options = STATE_0_1[case]
    assert b"nodepools.backends." in base64.b64decode(blob)
    provider = dill.loads(base64.b64decode(blob))
    assert type(provider) is cls
    assert provider._client_options == options  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize("cls", [OcmMachinePoolProvider, OsmoConfigProvider])
def test_new_state_pickles_the_provider_by_reference(cls: type) -> None:
    serialized = base64.b64decode(serialize_provider(cls()))
    assert cls.__module__.encode() in serialized and cls.__name__.encode() in serialized
    assert len(serialized) < 200  # a class reference, not code pickled by value
