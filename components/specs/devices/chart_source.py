"""Where a chart AcceleratorStack installs comes from, and what a user adds to its values:
the public repository by default, a mirror (an HTTP(S) Helm repository or an `oci://`
registry, as air-gapped clusters use) or a chart on local disk, and extra Helm values
(e.g. the image registry of a mirror), checked against the pinned chart
(`nodepools.specs.devices.chart_values`)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from nodepools.json_values import is_dict, is_list
from nodepools.specs.core.base import PathError, SpecModel
from pydantic import Field, field_validator, model_validator

REPOSITORY_SCHEMES = ("https", "http", "oci")


def repository_problem(value: str) -> str | None:
    """Why `value` can't be a chart repository, or None."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError as error:
        return f"{value!r} is not a URL ({error})"
    if parts.scheme not in REPOSITORY_SCHEMES:
        return (
            f"{value!r} is not a chart repository: the scheme must be https://, http:// (a Helm "
            "repository) or oci:// (an OCI registry)"
        )
    if not parts.hostname:
        return f"{value!r} names no host"
    if parts.query or parts.fragment:
        return f"{value!r} has a query or fragment, which a chart repository can't have"
    if parts.scheme == "oci" and value.endswith("/"):
        return f"{value!r} ends with '/': the chart's name is added after one"
    return None


def _json_problem(value: Any, path: str = "") -> tuple[str, str] | None:
    """(subpath, why) of the first part of `value` that is not plain JSON with string keys."""
    if is_dict(value):
        for key, item in value.items():
            if not isinstance(key, str) or not key:
                return path, f"key {key!r} is not a non-empty string"
            found = _json_problem(item, f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    if is_list(value):
        for index, item in enumerate(value):
            found = _json_problem(item, f"{path}[{index}]")
            if found:
                return found
        return None
    if value is None or isinstance(value, str | int | float | bool):
        return None
    return path, f"{value!r} is not a JSON value (a string, number, boolean, null, list or map)"


class ChartSource(SpecModel):
    """The chart source and extra values fields every chart option has."""

    repository: str | None = Field(
        default=None,
        description="Chart repository to install from: an HTTP(S) Helm repository "
        "(`https://charts.example.com/nvidia`) or an OCI registry path "
        "(`oci://registry.example.com/charts`, the chart's name is added), e.g. a mirror; "
        "default None: the chart's public repository.",
    )
    chart_path: str | None = Field(
        default=None,
        description="A chart on disk to install instead (a chart folder or `.tgz`, absolute or "
        "relative to the Pulumi project folder), holding the pinned version; default None.",
    )
    values: dict[str, Any] = Field(
        default_factory=dict[str, Any],
        description="Helm values added to the ones the stack sets (e.g. image registries of "
        "a mirror). With the pinned version, every key must be one the chart has, every value "
        "one its values schema accepts, and none one the stack sets itself; default {}.",
    )

    @field_validator("repository")
    @classmethod
    def _repository(cls, value: str | None) -> str | None:
        if value is not None and (problem := repository_problem(value)):
            raise ValueError(problem)
        return value

    @field_validator("chart_path")
    @classmethod
    def _chart_path(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or "://" in value):
            raise ValueError(f"{value!r} is not a path on disk (a repository goes in `repository`)")
        return value

    @field_validator("values", mode="before")
    @classmethod
    def _values(cls, value: Any) -> Any:
        found = _json_problem(value) if is_dict(value) else None
        if found:
            raise PathError(*found)
        return value

    @model_validator(mode="after")
    def _one_source(self) -> ChartSource:
        if self.repository is not None and self.chart_path is not None:
            raise PathError(
                "chart_path",
                f"{self.chart_path!r} can't be used with `repository` {self.repository!r}: "
                "only one of `repository` or `chart_path` can be provided",
            )
        return self
