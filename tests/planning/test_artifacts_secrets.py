"""Secrets never reach `plan --out` artifacts or validation errors."""

from __future__ import annotations

import pulumi
import pytest
from nodepools import MachinePool
from nodepools.offline import ProgramError, run
from nodepools.planning.artifacts import redacted_inputs, write_artifacts
from nodepools.specs import SpecError

TOKEN = "eyJhbGciOiJIUzI1NiJ9.offline-token-value"
ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}


def test_artifacts_redact_secrets_and_drop_internal_keys(tmp_path):
    capture = run(
        lambda: MachinePool(
            "batch",
            {
                "cluster": {**ROSA, "token": pulumi.Output.secret(TOKEN)},
                "instance_type": "m5.xlarge",
                "replicas": 3,
            },
        )
    )
    files = write_artifacts(capture, tmp_path)
    assert files
    for path in files:
        text = path.read_text()
        assert TOKEN not in text
        assert "__provider" not in text
    texts = "".join(p.read_text() for p in files)
    assert "token: '[secret]'" in texts


def test_redaction_follows_nested_paths():
    inputs = {"a": {"b": [{"c": "x"}, {"c": "y"}]}, "d": "z", "__provider": "blob"}
    assert redacted_inputs(inputs, ("a.b[1].c", "d", "missing.path")) == {
        "a": {"b": [{"c": "x"}, {"c": "[secret]"}]},
        "d": "[secret]",
    }


@pytest.mark.parametrize(
    "args",
    [
        {"token": TOKEN},  # a credential at the wrong level
        {"labels": {"team": "x"}, "extra": {"password": TOKEN}},  # nested in an unknown field
    ],
)
def test_errors_never_quote_a_misplaced_credential(args):
    with pytest.raises(ProgramError) as caught:
        run(
            lambda: MachinePool(
                "p", {"cluster": ROSA, "instance_type": "m5.xlarge", "replicas": 3, **args}
            )
        )
    assert isinstance(caught.value.cause, SpecError)
    assert TOKEN not in str(caught.value.cause)
    assert "<hidden" in str(caught.value.cause)


def test_secret_under_a_dotted_key_is_redacted(tmp_path):
    def program():
        pulumi.CustomResource(
            "kubernetes:core/v1:Secret",
            "creds",
            {
                "stringData": {"config.json": pulumi.Output.secret("LEAK1")},
                "list": [{"x.y": pulumi.Output.secret("LEAK2")}],
            },
        )

    capture = run(program)
    for path in write_artifacts(capture, tmp_path):
        text = path.read_text()
        assert "LEAK1" not in text and "LEAK2" not in text
        assert "config.json: '[secret]'" in text


def test_redaction_fails_closed_on_a_path_that_does_not_resolve():
    inputs = {"a": {"b": "plain", "c": "other"}, "d": 1}
    assert redacted_inputs(inputs, ("a.zzz.q",)) == {"a": "[secret]", "d": 1}


def test_our_own_validator_messages_are_hidden_under_credential_like_keys():
    with pytest.raises(ProgramError) as caught:
        run(
            lambda: MachinePool(
                "p",
                {
                    "cluster": ROSA,
                    "instance_type": "m5.xlarge",
                    "replicas": 3,
                    "labels": {"api-token": "x" * 64 + TOKEN[:5]},
                },
            )
        )
    message = str(caught.value.cause)
    assert 'labels["api-token"]' in message and TOKEN[:5] not in message and "<hidden" in message
