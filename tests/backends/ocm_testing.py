"""Shared values for the OCM tests: the test credentials, clusters and typical inputs."""

from __future__ import annotations

import copy
from typing import Any

from nodepools.backends.rosa.machine_pool import RESOURCE_TYPE

# Distinctive enough that finding these bytes anywhere means a leak, not a coincidence.
OFFLINE_TOKEN = "offline-eyJhbGciOi-7f3c9a1e-SECRET-b41d"
SINGLE_AZ = "cluster-1az"
MULTI_AZ = "cluster-3az"
JITTER = 0.5  # the injected "random" draw: every backoff sleep is half its ceiling

GPU_BODY: dict[str, Any] = {
    "id": "gpu",
    "instance_type": "g4dn.xlarge",
    "autoscaling": {"min_replicas": 0, "max_replicas": 3},
    "labels": {"node-type": "gpu", "team": "ml"},
    "taints": [
        {"key": "spot", "value": "true", "effect": "PreferNoSchedule"},
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
    ],
    "aws": {"spot_market_options": {"max_price": 0.5}},
    "root_volume": {"aws": {"size": 300}},
}


def gpu_body(**changes: Any) -> dict[str, Any]:
    """The GPU spot pool body with top-level fields replaced (None removes a field)."""
    body = copy.deepcopy(GPU_BODY)
    for key, value in changes.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body


def inputs(
    fake: Any,
    *,
    cluster_id: str = SINGLE_AZ,
    token: str | None = OFFLINE_TOKEN,
    body: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Resource inputs as the provider receives them (token already plain)."""
    props: dict[str, Any] = {
        "resource_type": RESOURCE_TYPE,
        "cluster_id": cluster_id,
        "api_url": fake.api_url,
        "sso_url": fake.sso_url,
        "multi_az": cluster_id == MULTI_AZ,
        "body": body if body is not None else gpu_body(),
    }
    if token is not None:
        props["token"] = token
    props.update(extra)
    return props
