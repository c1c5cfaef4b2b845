"""Workloads onto pools: recipes (Deployments) and their deterministic placement on shared pools."""
