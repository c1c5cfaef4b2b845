"""Quantities spelled as the API server spells them (apimachinery `Quantity.String()`), which is
what the Kubernetes provider records for a built-in object: the real engine's state of the
PoolPlatforms program (tests/engine) held "1" where the plan said 1 before this existed."""

from __future__ import annotations

import pytest
from nodepools.offline import run
from nodepools.validation.quantity import canonical_spelling

# (given, the API server's spelling): apimachinery's canonical forms, by format.
CASES = [
    (1, "1"),
    (1000, "1k"),  # decimal SI: trailing zeros become a suffix
    (1500, "1500"),
    (0, "0"),
    ("0.5", "500m"),
    (0.5, "500m"),
    (0.1, "100m"),  # the JSON number's digits, not the float's binary fraction
    ("1000m", "1"),
    ("1500m", "1500m"),
    ("0.0000000001", "1n"),  # rounded up to nano units
    ("1024Mi", "1Gi"),  # binary SI: the largest exact suffix
    ("1.5Gi", "1536Mi"),
    ("512Ki", "512Ki"),
    ("1023", "1023"),
    ("1e3", "1e3"),  # a decimal exponent stays one
    ("12e2", "1200"),
    ("-1", "-1"),
    ("not a quantity", "not a quantity"),  # left for the API server to refuse
]


@pytest.mark.parametrize(("given", "spelled"), CASES)
def test_quantities_are_spelled_as_the_api_server_spells_them(given: object, spelled: str):
    assert canonical_spelling(given) == spelled


def test_the_platform_pod_templates_carry_the_api_servers_spelling():
    """The engine matrix's PoolPlatforms program (which the real engine runs): every quantity
    of its PodTemplates is the string the provider would store (it had `cpu: 1`)."""
    from tests.engines.components import COMPONENTS

    capture = run(COMPONENTS["PoolPlatforms"])
    templates = [r for r in capture.custom_resources() if r.type.endswith(":PodTemplate")]
    assert templates
    for template in templates:
        for container in template.inputs["template"]["spec"]["containers"]:
            for amounts in (container.get("resources") or {}).values():
                assert all(canonical_spelling(v) == v for v in amounts.values()), amounts
