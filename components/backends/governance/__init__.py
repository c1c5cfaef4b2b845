"""OSMO config documents applied through a Pulumi dynamic provider and OSMO's HTTP API."""
