"""The components as a Pulumi package, usable from TypeScript, Go, C#, Java and YAML.

`python -m nodepools.provider` serves every component a fleet can name through the Pulumi
SDK's component provider host; its schema is derived from the pydantic specs at start-up
(`nodepools.provider.schema_types`), so the Python API and the package never drift apart.
`reference` writes `docs/reference.md` from the same specs.

May import: `pulumi`, `pydantic`, `nodepools.specs.core` (field documentation) and
`nodepools.fleet.deploy` (which components a fleet can name, loaded on first use); it
sits above the fleet.
"""
