"""The MIG profiles of each NVIDIA GPU model that can be partitioned."""

from __future__ import annotations

# MIG profiles per GPU model (catalog `Accelerator.model`) -> instances of that profile one
# GPU holds. NVIDIA MIG user guide, "Supported MIG Profiles"
# (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html).
MIG_PROFILES: dict[str, dict[str, int]] = {
    "A100-40GB": {
        "1g.5gb": 7,
        "1g.10gb": 4,
        "2g.10gb": 3,
        "3g.20gb": 2,
        "4g.20gb": 1,
        "7g.40gb": 1,
    },
    "A100-80GB": {
        "1g.10gb": 7,
        "1g.20gb": 4,
        "2g.20gb": 3,
        "3g.40gb": 2,
        "4g.40gb": 1,
        "7g.80gb": 1,
    },
    "H100": {
        "1g.10gb": 7,
        "1g.20gb": 4,
        "2g.20gb": 3,
        "3g.40gb": 2,
        "4g.40gb": 1,
        "7g.80gb": 1,
    },
    "H200": {
        "1g.18gb": 7,
        "1g.35gb": 4,
        "2g.35gb": 3,
        "3g.71gb": 2,
        "4g.71gb": 1,
        "7g.141gb": 1,
    },
}
