"""Cross-field checks of the chart options (`<vendor>.repository`, `.chart_path`, `.values`)
against what the stack installs: the values a user adds, checked against the pinned chart
(`nodepools.specs.devices.chart_values`), and chart options where OKE's add-ons install the
software instead of a chart."""

from __future__ import annotations

from typing import Any

from nodepools.specs.core.base import Issue, SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.devices.args import AcceleratorStackArgs
from nodepools.specs.devices.chart_values import values_problems
from nodepools.specs.devices.releases import stack_releases

# The AcceleratorStack field of each release's chart options, by the release's vendor.
OPTION_FIELD = {"nvidia": "nvidia", "amd": "amd", "aws": "neuron", "efa": "efa"}


def parse_stack(args: Any, subject: str) -> AcceleratorStackArgs:
    """AcceleratorStack's args validated, then checked against the charts they install
    (these checks plan the releases, so they run once the args themselves are valid)."""
    spec = parse_spec(AcceleratorStackArgs, args, subject)
    if problems := chart_problems(spec):
        raise SpecError(subject, problems)
    return spec


def chart_problems(spec: AcceleratorStackArgs) -> list[Issue]:
    problems: list[Issue] = []
    for plan, option in stack_releases("stack", spec):
        where = f"{OPTION_FIELD[plan.vendor]}.values"
        problems += values_problems(where, plan.chart, plan.version, option.values, plan.values)
    if spec.uses_oke_addons:
        for field in ("nvidia", "amd"):
            option = getattr(spec, field)
            if option is None:
                continue
            for name in ("repository", "chart_path", "values"):
                if getattr(option, name):
                    problems.append(
                        Issue(
                            f"{field}.{name}",
                            f"{getattr(option, name)!r} is for the Helm chart, which OKE's "
                            "GPU plugin add-on replaces here; set `oke_addons: false` to "
                            "install the chart",
                        )
                    )
    return problems
