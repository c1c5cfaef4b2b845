"""Governance of pools, rendered as plain manifests (no pulumi import here).

`kueue` renders PoolQuotas as Kueue objects, `platforms` renders PoolPlatforms as
PodTemplates, ValidatingAdmissionPolicies and RBAC, `cel` compile-checks the CEL those
policies carry, `fleet_refs` resolves fleet pool names for stack config, and `register`
turns manifests into resources (registered as pulumi_kubernetes's classes would, without
importing it).
"""
