"""The documented formats of the cloud identifiers a cluster target or pool takes: a value
that can't be one is refused before anything is registered (an Output passes: its value is
known only at deploy time).

- EKS cluster name: 1 to 100 characters, `^[0-9A-Za-z][A-Za-z0-9\\-_]*$` (EKS API
  CreateCluster `name`).
- EC2 ids: `subnet-`, `sg-`, `vpc-` followed by hex digits (EC2 issues 8 or 17).
- OCIDs: `ocid1.<resource type>.<realm>.[region][.future use].<unique id>` (OCI docs,
  "Resource Identifiers"); a compartment may be the root compartment, the tenancy.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from nodepools.specs.core.deferred_checks import RESOLVED_OUTPUT
from pydantic import ValidationInfo

EKS_CLUSTER_NAME = re.compile(r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$")
_OCID = r"^ocid1\.{types}\.[a-z0-9]+\.[a-z0-9-]*(\.[a-z0-9-]+)?\.[a-z0-9]+$"


def ocid_pattern(*types: str) -> re.Pattern[str]:
    """An OCID of one of `types` (e.g. `cluster`, `subnet`)."""
    return re.compile(_OCID.format(types="(" + "|".join(types) + ")"))


def ec2_id_pattern(prefix: str) -> re.Pattern[str]:
    """An EC2 id such as `subnet-0123456789abcdef0`."""
    return re.compile(rf"^{prefix}-[0-9a-f]{{1,17}}$")


def eks_cluster_name_problem(value: Any) -> str | None:
    """Why `value` can't be an EKS cluster name, or None."""
    if not isinstance(value, str) or EKS_CLUSTER_NAME.fullmatch(value):
        return None
    return (
        f"{value!r} is not an EKS cluster name (1 to 100 letters, digits, '-' and '_', "
        "starting with a letter or digit)"
    )


def written_by_user(info: ValidationInfo | None) -> bool:
    """Whether the value being validated is one the user wrote, not a resolved Output (whose
    value under a user's mocks needn't look like a real id)."""
    context: dict[str, Any] = info.context or {} if info is not None else {}
    return not context.get(RESOLVED_OUTPUT)


def id_check(
    pattern: re.Pattern[str], what: str, example: str
) -> Callable[[Any, ValidationInfo | None], Any]:
    """A field validator refusing a plain string that doesn't match `pattern`."""

    def check(value: Any, info: ValidationInfo | None) -> Any:
        if isinstance(value, str) and written_by_user(info) and not pattern.fullmatch(value):
            raise ValueError(f"{value!r} is not {what} (e.g. {example!r})")
        return value

    return check


SUBNET_ID = ec2_id_pattern("subnet")
SECURITY_GROUP_ID = ec2_id_pattern("sg")
VPC_ID = ec2_id_pattern("vpc")
check_subnet_id = id_check(SUBNET_ID, "a subnet id", "subnet-0123456789abcdef0")
check_security_group_id = id_check(SECURITY_GROUP_ID, "a security group id", "sg-0123456789abcdef0")
check_vpc_id = id_check(VPC_ID, "a VPC id", "vpc-0123456789abcdef0")
check_oke_cluster_id = id_check(
    ocid_pattern("cluster"), "a cluster OCID", "ocid1.cluster.oc1.phx.aaaa..."
)
check_compartment_id = id_check(
    ocid_pattern("compartment", "tenancy"),
    "a compartment OCID (or the tenancy's, for the root compartment)",
    "ocid1.compartment.oc1..aaaa...",
)
check_image_id = id_check(ocid_pattern("image"), "an image OCID", "ocid1.image.oc1.phx.aaaa...")
check_oci_subnet_id = id_check(
    ocid_pattern("subnet"), "a subnet OCID", "ocid1.subnet.oc1.phx.aaaa..."
)
check_node_pool_id = id_check(
    ocid_pattern("nodepool"), "a node pool OCID", "ocid1.nodepool.oc1.phx.aaaa..."
)
