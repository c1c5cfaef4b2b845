"""The `Recipe` component (a Deployment, and a Service, on shared pools), its manifests as
plain dicts, its PodDisruptionBudget on spot capacity, and the deterministic placement of
recipes on shared pools (`placement`, pure: also used by the fleet and the plan).

May import: `pulumi` (the component only), `nodepools.specs` (`.core`, `.catalog`,
`.pools`, `.workloads`), `nodepools.backends.workloads` (which
registers the objects), and the top-level
helpers `nodepools.documentation`, `.outputs` and `.scheduling`.
"""
