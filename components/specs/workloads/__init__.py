"""Workloads placed on pools: the `Recipe` arguments, their defaults applied
(`ResolvedRecipe`), and the disruption settings of a recipe on spot capacity.

May import: `nodepools.specs.core`, `.catalog` and `.pools` (shared pool descriptions),
and `nodepools.validation.quantity`.
"""
