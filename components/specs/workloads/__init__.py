"""Workloads placed on pools: the `Recipe` arguments and its disruption settings.

May import: `nodepools.specs.core`, `.catalog`, `.clusters`, `.pools`.
"""
