"""The version a user pins a chart or an OKE add-on to: SemVer 2, as Helm requires of every
chart version ("a version must follow the SemVer 2 standard", Helm's chart docs), with the
leading `v` charts such as gpu-operator (`v26.7.0`) and OKE's add-ons (`v0.21.0`) use."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator

# semver.org's grammar: MAJOR.MINOR.PATCH, numbers without leading zeros, then an optional
# pre-release (`-rc.1`) and build (`+build.5`).
_NUMBER = r"(0|[1-9]\d*)"
_IDENTIFIERS = r"[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*"
SEMVER = re.compile(rf"^v?{_NUMBER}\.{_NUMBER}\.{_NUMBER}(-{_IDENTIFIERS})?(\+{_IDENTIFIERS})?$")


def version_problem(value: Any) -> str | None:
    """Why `value` can't be a chart or add-on version, or None."""
    if isinstance(value, str) and SEMVER.fullmatch(value):
        return None
    return (
        f"{value!r} is not a SemVer version (MAJOR.MINOR.PATCH, e.g. '0.21.0' or 'v26.7.0', "
        "with an optional '-prerelease' and '+build')"
    )


def _check_version(value: Any) -> Any:
    if value is not None and (problem := version_problem(value)):
        raise ValueError(problem)
    return value


# A chart or add-on version, None for the pinned (or OKE's) default.
ChartVersion = Annotated[str | None, BeforeValidator(_check_version)]
