"""RosaCluster: defaults, its place among the cluster targets, and a token that never shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from nodepools.fleet.deploy import validate_fleet
from nodepools.specs import ClusterTarget, MachinePoolArgs, RosaCluster, SpecError, parse_spec
from nodepools.specs.clusters.capabilities import capabilities_for
from nodepools.specs.clusters.rosa import DEFAULT_API_URL, DEFAULT_SSO_URL, TOKEN_ENV_VARS
from pydantic import SecretStr, TypeAdapter, ValidationError

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "offline-eyJhbGciOi-ROSA-SPEC-5e1f"
CLUSTER_ID = "2a8lld2m7drto9rj0c6umn9tb4d6f291"


def rosa(**fields) -> dict:
    return {"kind": "rosa", "cluster_id": CLUSTER_ID, **fields}


def test_defaults():
    cluster = RosaCluster.model_validate(rosa())

    assert cluster.multi_az is False
    assert cluster.token is None and not cluster.has_token
    assert cluster.api_url == "https://api.openshift.com"
    assert cluster.sso_url == (
        "https://sso.redhat.com/auth/realms/redhat-external/protocol/openid-connect/token"
    )


def test_defaults_are_the_ocm_clients_endpoints():
    from nodepools.backends.rosa import ocm_client

    assert (DEFAULT_API_URL, DEFAULT_SSO_URL) == (
        ocm_client.DEFAULT_API_URL,
        ocm_client.DEFAULT_SSO_URL,
    )


def test_every_field_documents_its_default():
    for name, field in RosaCluster.model_fields.items():
        assert field.description, name
        if not field.is_required():
            assert "default" in field.description.lower(), name


def test_the_env_fallback_is_documented_and_is_what_the_provider_reads(monkeypatch):
    from nodepools.backends.rosa import machine_pool as backend

    description = RosaCluster.model_fields["token"].description
    assert "RHCS_TOKEN then OCM_TOKEN" in description
    assert "deploy time" in description
    assert backend.TOKEN_ENV_VARS == TOKEN_ENV_VARS == ("RHCS_TOKEN", "OCM_TOKEN")
    monkeypatch.setenv("OCM_TOKEN", "from-ocm")
    monkeypatch.setenv("RHCS_TOKEN", "from-rhcs")
    assert backend.resolve_token(None) == "from-rhcs"
    monkeypatch.delenv("RHCS_TOKEN")
    assert backend.resolve_token(None) == "from-ocm"


def test_rosa_joins_the_cluster_targets():
    adapter = TypeAdapter(ClusterTarget)

    assert isinstance(adapter.validate_python(rosa(multi_az=True)), RosaCluster)
    with pytest.raises(SpecError) as error:
        parse_spec(
            MachinePoolArgs, {"cluster": {"kind": "rossa"}, "instance_type": "m5.xlarge"}, "p"
        )
    assert "'eks', 'oke', 'rosa'" in str(error.value)


def test_capabilities():
    single = capabilities_for(RosaCluster.model_validate(rosa()))
    multi = capabilities_for(RosaCluster.model_validate(rosa(multi_az=True)))

    assert single.spot_max_price and single.boot_volume_gb == (128, 16384)
    assert (single.replicas_multiple, multi.replicas_multiple) == (1, 3)


@pytest.mark.parametrize(
    ("fields", "path", "message"),
    [
        ({"cluster_id": "a,b"}, "cluster.cluster_id", "'a,b' is not an OCM cluster id"),
        ({"cluster_id": ""}, "cluster.cluster_id", "'' is not an OCM cluster id"),
        ({"multi_az": "maybe"}, "cluster.multi_az", "'maybe'"),
        (
            {"api_url": "http://api.example.com"},
            "cluster.api_url",
            "'http://api.example.com' must be an https:// URL",
        ),
        ({"sso_url": "sso.redhat.com/token"}, "cluster.sso_url", "'sso.redhat.com/token'"),
        ({"token": "  "}, "cluster.token", "is empty; leave `token` out to read RHCS_TOKEN"),
        (
            {"token": {"secure": "v1:AAAA"}},
            "cluster.token",
            "is encrypted stack config, which an offline run can't decrypt",
        ),
    ],
)
def test_bad_fields_are_reported_with_their_path(fields, path, message):
    with pytest.raises(SpecError) as error:
        parse_spec(MachinePoolArgs, {"cluster": rosa(**fields), "instance_type": "m5.xlarge"}, "p")

    [issue] = [i for i in error.value.issues if i.path == path]
    assert message in issue.message


def test_loopback_test_servers_may_use_plain_http():
    cluster = RosaCluster.model_validate(
        rosa(api_url="http://127.0.0.1:8000", sso_url="http://localhost:8001/token")
    )
    assert cluster.api_url == "http://127.0.0.1:8000"


def test_a_plain_token_is_kept_as_a_secret_value():
    cluster = RosaCluster.model_validate(rosa(token=f" {TOKEN}\n"))

    assert isinstance(cluster.token, SecretStr)
    assert cluster.token.get_secret_value() == TOKEN  # stripped, like the env fallback
    assert cluster.has_token
    # Validating it again (parse_spec re-validates dumped models) keeps it.
    again = RosaCluster.model_validate(cluster.model_dump())
    assert again.token.get_secret_value() == TOKEN


def test_the_token_never_shows_in_repr_str_or_dumps():
    args = parse_spec(
        MachinePoolArgs,
        {"cluster": rosa(token=TOKEN), "instance_type": "m5.xlarge", "replicas": 1},
        "p",
    )

    for text in (
        repr(args),
        str(args),
        repr(args.cluster),
        str(args.cluster),
        args.model_dump_json(),
        repr(args.model_dump()),
    ):
        assert TOKEN not in text
    assert "token=" not in repr(args.cluster)


BAD_POOLS_CARRYING_THE_TOKEN = [
    pytest.param({"cluster": rosa(tokn=TOKEN)}, "cluster.tokn", id="misspelt-key"),
    pytest.param({"cluster": rosa(token=TOKEN.encode())}, "cluster.token", id="bytes-token"),
    pytest.param(
        {"cluster": rosa(token=TOKEN, multi_az=True), "replicas": 2}, "replicas", id="other-error"
    ),
    pytest.param(
        {"cluster": rosa(token=TOKEN, cluster_id=None)}, "cluster.cluster_id", id="cluster-error"
    ),
]


@pytest.mark.parametrize(("extra", "path"), BAD_POOLS_CARRYING_THE_TOKEN)
def test_the_token_never_shows_in_spec_errors(extra, path):
    data = {"instance_type": "m5.xlarge", "replicas": 1, **extra}

    with pytest.raises(SpecError) as error:
        parse_spec(MachinePoolArgs, data, "MachinePool 'p'")

    assert path in error.value.paths()
    assert TOKEN not in str(error.value)
    assert TOKEN not in repr(error.value.issues)


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"tokn": TOKEN}, id="misspelt-key"),
        pytest.param({"token": TOKEN.encode()}, id="bytes-token"),
        pytest.param({"token": [TOKEN]}, id="list-token"),
    ],
)
def test_the_token_never_shows_in_pydantics_own_errors(fields):
    with pytest.raises(ValidationError) as error:
        RosaCluster.model_validate({"kind": "rosa", "cluster_id": CLUSTER_ID, **fields})

    assert TOKEN not in str(error.value)
    assert TOKEN not in repr(error.value.errors())
    assert "<hidden>" in str(error.value)
    # Built by hand, the model raises our SpecError, which hides the token just the same.
    with pytest.raises(SpecError) as spec_error:
        RosaCluster(kind="rosa", cluster_id=CLUSTER_ID, **fields)
    assert TOKEN not in str(spec_error.value)
    assert TOKEN not in repr(spec_error.value.issues)


def test_the_token_never_shows_in_fleet_config_errors():
    config = {
        "clusters": {"ml-rosa": rosa(tokn=TOKEN), "other": rosa(token=TOKEN, api_url="ftp://x")},
        "pools": [],
    }

    with pytest.raises(SpecError) as error:
        validate_fleet(config)

    assert error.value.paths() == [
        'nodepools:clusters["ml-rosa"].tokn',
        "nodepools:clusters.other.api_url",
    ]
    assert TOKEN not in str(error.value)


def test_importing_components_loads_no_http_client_or_cloud_sdk():
    code = (
        "import sys, nodepools\n"
        "assert nodepools.RosaCluster\n"
        "heavy = ('httpx', 'pulumi_aws', 'pulumi_oci', 'pulumi_kubernetes')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
