"""OSMO config documents applied through a Pulumi dynamic provider and OSMO's HTTP API.

May import: `nodepools.specs`, `nodepools.backends.dynamic_support` and `.http_retry`.
"""
