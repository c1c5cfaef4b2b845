"""Pool labels stay out of the domains Kubernetes and Karpenter reserve for themselves.

Decision: a label key is restricted when its prefix is, or is a subdomain of, `kubernetes.io`,
`k8s.io`, `karpenter.sh` or `karpenter.k8s.aws`. The only keys let through are those a kubelet
may set on its own node under the NodeRestriction admission plugin (`kubernetes.io/arch`,
`kubernetes.io/os`, `node.kubernetes.io/instance-type`, `topology.kubernetes.io/region`,
`topology.kubernetes.io/zone`, and the `node.kubernetes.io/` and `kubelet.kubernetes.io/`
prefixes): a pool that declares anything else there either fails to register its nodes
(EKS and OKE pass pool labels to the kubelet) or is rejected by Karpenter's admission rules.
`kubernetes.io/hostname` stays restricted although kubelets may set it: on a pool it would
give every node the same hostname label and break per-node topology spreading. Karpenter's
own domains are restricted outright; Karpenter sets those labels itself from the NodePool's
requirements, which is where a pool should express them. Policy config `allowedKeys` adds
organisation-specific exceptions.
"""

from __future__ import annotations

from nodepools.policies.resources import items, pool_view
from nodepools.specs.labels import restricted_domain
from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)


def _validate_label_domains(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pool = pool_view(args.resource_type, args.props, args.name)
    if pool is None:
        return
    allowed = frozenset(str(k) for k in items(args.get_config().get("allowedKeys")))
    for key in sorted(pool.labels):
        domain = restricted_domain(key, allowed)
        if domain is not None:
            report(
                f"Pool '{pool.name}' sets label `{key}` in `{pool.path('labels')}`; the "
                f"`{domain}` domain is reserved (use your own prefix, or add the key to policy "
                "config `allowedKeys`).",
                None,
            )


restricted_label_domains = ResourceValidationPolicy(
    name="restricted-label-domains",
    description=(
        "Node pool labels avoid the reserved kubernetes.io, k8s.io, karpenter.sh and "
        "karpenter.k8s.aws domains."
    ),
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "allowedKeys": {
                "type": "array",
                "items": {"type": "string"},
                "default": [],
                "description": "Label keys to allow even though they are in a reserved domain.",
            }
        }
    ),
    validate=_validate_label_domains,
)
