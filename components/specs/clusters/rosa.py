"""The ROSA Classic cluster target: pools become OpenShift Cluster Manager machine pools.

It has a module of its own because of the OCM token, a long-lived credential that must not
leak through the spec. A plain token is kept as a `SecretStr` (its `repr`, `str` and JSON
dump show asterisks), the field is left out of the model's `repr`, and every validation
error raised inside a `RosaCluster` has its input hidden when it concerns the token or an
unknown field (a misspelt `tokn: ...` would otherwise be quoted back in the error).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from nodepools.specs.core.base import is_output, wired
from nodepools.specs.core.secret_inputs import HoldsSecret, checked_url, secret_token
from pydantic import Field, field_validator

DEFAULT_API_URL = "https://api.openshift.com"
DEFAULT_SSO_URL = "https://sso.redhat.com/auth/realms/redhat-external/protocol/openid-connect/token"
# Read, in this order, by the provider when a cluster has no `token`: the names the rhcs
# Terraform provider and the `ocm` CLI use, so an existing CI setup works unchanged.
TOKEN_ENV_VARS = ("RHCS_TOKEN", "OCM_TOKEN")

# Generous on purpose (OCM ids are 32 lowercase base32 characters today); it only keeps
# out what would break the request path or the `<cluster_id>,<pool_id>` resource id.
_CLUSTER_ID = re.compile(r"^[A-Za-z0-9][-A-Za-z0-9_]*$")


Token = Annotated[Any, secret_token(TOKEN_ENV_VARS)]


class RosaCluster(HoldsSecret):
    """An existing ROSA Classic cluster; pools become OCM machine pools.

    There is no Pulumi provider for ROSA Classic: pools are managed through the OpenShift
    Cluster Manager REST API by a dynamic provider (`nodepools.backends.rosa.machine_pool`).
    """

    kind: Literal["rosa"] = Field(description="Discriminator: `rosa`.")
    cluster_id: Annotated[Any, wired(str)] = Field(
        description="OCM cluster id (the `ID` that `rosa describe cluster` prints; not the "
        "cluster name), or an Output. Required."
    )
    multi_az: bool = Field(
        default=False,
        description="Whether the cluster spans three availability zones; its machine pools "
        "then need replicas and autoscaling bounds in multiples of 3. Checked against the "
        "cluster's `multi_az` in OCM at `pulumi up`, before any change. Default false.",
    )
    token: Token = Field(
        default=None,
        repr=False,
        description="OCM offline token (a string or, better, a secret Output such as "
        "`config.require_secret(...)`); always registered as a Pulumi secret. Default None: "
        f"the provider reads {' then '.join(TOKEN_ENV_VARS)} from the environment of the "
        "`pulumi` process at deploy time (offline plans need no token).",
    )
    api_url: str = Field(
        default=DEFAULT_API_URL,
        description=f"OCM API root; default `{DEFAULT_API_URL}` (production). Point it "
        "elsewhere for staging, a private install or a test server.",
    )
    sso_url: str = Field(
        default=DEFAULT_SSO_URL,
        description=f"Red Hat SSO token endpoint the offline token is exchanged at; default "
        f"`{DEFAULT_SSO_URL}`.",
    )

    @field_validator("cluster_id")
    @classmethod
    def _cluster_id(cls, value: Any) -> Any:
        if is_output(value):
            return value
        if not _CLUSTER_ID.fullmatch(value):
            raise ValueError(
                f"{value!r} is not an OCM cluster id (letters, digits, '-' and '_', e.g. "
                "'2a8lld2m7drto9rj0c6umn9tb4d6f291')"
            )
        return value

    _secure_url = field_validator("api_url", "sso_url")(checked_url)

    @property
    def has_token(self) -> bool:
        """Whether a token was given (else the environment provides it at deploy time)."""
        return self.token is not None
