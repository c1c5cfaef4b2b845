"""Governance of pools, rendered as plain manifests (no pulumi import here).

`kueue` renders PoolQuotas as Kueue objects, `platforms` renders PoolPlatforms as
PodTemplates, ValidatingAdmissionPolicies and RBAC, `cel` compile-checks the CEL those
policies carry, `fleet_refs` resolves fleet pool names for stack config, and `register`
(the only module that imports pulumi_kubernetes, lazily) turns manifests into resources.
"""
