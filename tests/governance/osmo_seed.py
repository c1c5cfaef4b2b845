"""Seed 002's OSMO documents, copied as written ("Pool Configuration", NVIDIA OSMO docs).

The seed's a100 file closes `tolerations` with `}`; here it is the list it means. Tests
compare what we emit and send with these, so they must stay exactly the seed's.
"""

from __future__ import annotations

import copy
from typing import Any

L40S_FILE = {"l40s": {"spec": {"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L40S"}}}}
A100_FILE = {
    "a100": {
        "spec": {
            "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100"},
            "tolerations": [
                {
                    "key": "nvidia.com/gpu.product",
                    "operator": "Equal",
                    "value": "NVIDIA-A100",
                    "effect": "NoSchedule",
                }
            ],
        }
    }
}
POOL_FILE = {
    "name": "shared_simulation_training_pool",
    "backend": "default",
    "default_platform": "l40s_platform",
    "description": "Simulation and training pool",
    "common_default_variables": {
        "USER_CPU": 1,
        "USER_GPU": 0,
        "USER_MEMORY": "1Gi",
        "USER_STORAGE": "1Gi",
    },
    "common_resource_validations": ["default_cpu", "default_memory", "default_storage"],
    "common_pod_template": ["default_user", "default_ctrl"],
    "platforms": {
        "l40s_platform": {
            "description": "L40S platform",
            "host_network_allowed": False,
            "privileged_allowed": False,
            "default_variables": {},
            "resource_validations": [],
            "override_pod_template": ["l40s"],
            "allowed_mounts": [],
        },
        "a100_platform": {
            "description": "A100 platform",
            "host_network_allowed": False,
            "privileged_allowed": False,
            "default_variables": {},
            "resource_validations": [],
            "override_pod_template": ["a100"],
            "allowed_mounts": [],
        },
    },
}
ROLE_FILE = {
    "name": "osmo-shared",
    "description": "Role for shared simulation training pool",
    "actions": [
        {"base": "http", "path": "/api/pool/shared_simulation_training_pool*", "method": "post"},
        {"base": "http", "path": "http:/api/profile/*", "method": "*"},
    ],
}
# (config type, name) -> the document `osmo config update` is given.
SEED_DOCUMENTS = {
    ("POD_TEMPLATE", "l40s"): L40S_FILE,
    ("POD_TEMPLATE", "a100"): A100_FILE,
    ("POOL", "shared_simulation_training_pool"): POOL_FILE,
    ("ROLE", "osmo-shared"): ROLE_FILE,
}

# What is sent: the same, but the role in OSMO's current form (legacy `actions` translated
# as OSMO's CLI translates `osmo config set ROLE osmo-<pool> pool`).
SENT_ROLE = {
    "name": "osmo-shared",
    "description": "Role for shared simulation training pool",
    "policies": [
        {"actions": ["workflow:*"], "resources": ["pool/shared_simulation_training_pool*"]}
    ],
}
SENT_DOCUMENTS = {**SEED_DOCUMENTS, ("ROLE", "osmo-shared"): SENT_ROLE}


def seed_kwargs() -> dict[str, Any]:
    """`PoolPlatforms.from_osmo` keyword arguments of the seed (fresh copies)."""
    return copy.deepcopy(
        {"pool": POOL_FILE, "pod_templates": {**L40S_FILE, **A100_FILE}, "roles": [ROLE_FILE]}
    )
