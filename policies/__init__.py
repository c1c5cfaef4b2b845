"""The CrossGuard policy pack for nodepools (`nodepools.policies`): policies over the
resources a stack registers, read the way the components write them, run by the Pulumi
CLI as an analyzer (`__main__`, `PulumiPolicy.yaml`) and by the offline plan.

May import: `nodepools.specs` (labels, tags, catalog and prices: the components' own
conventions), `nodepools.json_values`; never a component, backend, the fleet or planning.
"""
