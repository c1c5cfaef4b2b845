"""The options of a project made from a nodepools template (`pulumi new`, templates/).

A template's options are its `template: config:` keys, which `pulumi new` writes into the
stack's config as `<project>:<key>`. The template's program reads them with
`template_options`, which gives each option its value (or its default) and refuses a key
of the project's that is no option, such as a misspelt one, which Pulumi would ignore
without a word. The refusal is one line naming the fix, raised before the program
registers anything.
"""

from __future__ import annotations

from collections.abc import Mapping

from nodepools.specs.core.field_names import did_you_mean


class TemplateOptionError(ValueError):
    """A config key of the project that the template has no option for."""


def _configured_keys() -> set[str]:
    """Every config key the program was given (`project:key`), as the SDK reads them: set
    by the language host, or in the engine's `PULUMI_CONFIG` bag."""
    from pulumi.runtime import config

    return set(config.CONFIG.get()) | set(config.get_config_env())


def template_options(defaults: Mapping[str, str], project: str | None = None) -> dict[str, str]:
    """Each option's configured value, else its default (`defaults`: option -> default, as
    the template's Pulumi.yaml gives them). Raises TemplateOptionError for a config key of
    `project` (default: the running project) that is not in `defaults`."""
    import pulumi

    name = project or pulumi.get_project()
    prefix = f"{name}:"
    unknown = sorted(
        key[len(prefix) :]
        for key in _configured_keys()
        if key.startswith(prefix) and key[len(prefix) :] not in defaults
    )
    if unknown:
        key = unknown[0]
        raise TemplateOptionError(
            f"`{prefix}{key}`: not an option of this template{did_you_mean(key, defaults)} "
            f"(options: {', '.join(sorted(defaults))}); rename it in the stack's config file, "
            f"or remove it with `pulumi config rm {key}`"
        )
    config = pulumi.Config(name)
    return {key: config.get(key) or default for key, default in defaults.items()}
