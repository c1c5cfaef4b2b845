"""The real API server accepts the vendored CRDs (schemas and CEL rules compile) and serves them."""

from __future__ import annotations

from typing import Any

from nodepools.validation.catalog import DATA_FILES, load_facts


def test_every_vendored_crd_is_established_and_served(
    api_client: Any, installed_crds: list[str]
) -> None:
    from kubernetes import client

    assert len(installed_crds) == len(DATA_FILES)
    objects = client.CustomObjectsApi(api_client)
    for api_version, kind in sorted(DATA_FILES):
        facts = load_facts(api_version, kind)
        listed = objects.list_cluster_custom_object(
            facts["group"], facts["version"], facts["plural"]
        )
        assert listed["items"] == [], (api_version, kind)
