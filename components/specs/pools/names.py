"""Pool names: one rule valid for every backend at once (EKS node group names, OKE pool
names, OCM machine pool ids, which must start with a letter, and Kubernetes label values).

Apart from the pool specs so that specs which only name pools (AcceleratorStack's served
pools, the OKE autoscaler's list, governance) do not build the pool models.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

POOL_NAME_PATTERN = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
POOL_NAME_MAX = 63


def pool_name_problem(name: object) -> str | None:
    if (
        not isinstance(name, str)
        or not POOL_NAME_PATTERN.fullmatch(name)
        or len(name) > POOL_NAME_MAX
    ):
        return (
            f"{name!r} is not a valid pool name: 1 to {POOL_NAME_MAX} lowercase letters, "
            "digits and '-', starting with a letter and ending with a letter or digit"
        )
    return None


def _check_pool_name(name: str) -> str:
    if problem := pool_name_problem(name):
        raise ValueError(problem)
    return name


# A pool name given explicitly; when unset, the component name is checked at resolve time.
PoolName = Annotated[str, AfterValidator(_check_pool_name)]
