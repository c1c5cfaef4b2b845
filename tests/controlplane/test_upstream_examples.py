"""Karpenter's and Kueue's own examples, as KarpenterNodePool and KueueQueues emit them,
accepted by the real API server serving the vendored CRDs (server-side apply, dryRun=All:
schema, CEL rules and defaulting, nothing stored, so the examples' shared names such as
`default` never collide with other tests' objects).

The offline validator accepts the same objects (tests/test_karpenter_upstream.py,
tests/governance/test_kueue_queues.py); here the API server itself is the oracle, for the
admission-check kinds and their RE2 patterns (`^(?i)...`) too.
"""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.kueue import KueueQueuesArgs

from tests.controlplane.objects import KubeObject, apply, apply_rank, server_message
from tests.governance import test_kueue_queues as kueue_examples
from tests.test_karpenter_upstream import EXAMPLES as KARPENTER_EXAMPLES
from tests.test_karpenter_upstream import _documents as karpenter_documents
from tests.test_karpenter_upstream import emit_example


def _dry_run_all(dynamic: Any, objects: list[KubeObject]) -> None:
    from kubernetes.client.exceptions import ApiException

    for obj in sorted(objects, key=apply_rank):
        try:
            apply(dynamic, obj, dry_run=True)
        except ApiException as error:
            pytest.fail(f"dryRun=All rejected {obj.label}: {server_message(error)}", pytrace=False)


@pytest.mark.parametrize("example", KARPENTER_EXAMPLES)
def test_karpenter_examples_as_emitted_are_accepted(
    example: str, dynamic_client: Any, installed_crds: list[str]
) -> None:
    rendered, _ = emit_example(example, karpenter_documents(example))
    objects = [
        KubeObject(f"{example}: {role}", m)
        for manifests in rendered
        for role, m in manifests.items()
    ]
    _dry_run_all(dynamic_client, objects)


@pytest.mark.parametrize("example", sorted(kueue_examples.EXAMPLES))
def test_kueue_examples_as_emitted_are_accepted(
    example: str, dynamic_client: Any, installed_crds: list[str]
) -> None:
    documents = kueue_examples._documents(example)
    args = parse_spec(KueueQueuesArgs, kueue_examples._args(documents), example)
    objects = [KubeObject(f"{example}: {path}", m) for path, m in args.manifests()]
    _dry_run_all(dynamic_client, objects)


@pytest.mark.parametrize(
    ("kind", "accepted"),
    [
        ("ProvisioningRequestConfig", True),
        ("provisioningrequestconfig", True),
        ("Prov_Config", False),
    ],
)
def test_admission_check_kind_pattern_as_the_api_server_reads_it(
    kind: str, accepted: bool, dynamic_client: Any, installed_crds: list[str]
) -> None:
    # `parameters.kind` has the RE2 pattern `^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$`: the offline
    # validator's translation of the mid-pattern flag must agree with Go's regexp.
    from kubernetes.client.exceptions import ApiException
    from nodepools.validation import validate_manifest

    manifest = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "AdmissionCheck",
        "metadata": {"name": "pattern-check"},
        "spec": {
            "controllerName": "kueue.x-k8s.io/provisioning-request",
            "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": kind, "name": "prov"},
        },
    }
    try:
        apply(dynamic_client, KubeObject("pattern", manifest), dry_run=True)
        server_accepts = True
    except ApiException:
        server_accepts = False
    assert server_accepts is accepted
    assert (validate_manifest(manifest) == []) is accepted
