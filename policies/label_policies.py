"""Pool labels stay where the kubelet (and, for Karpenter, the NodePool CRD) accepts them.

Decision: a label key is restricted when the node could never carry it. In the
`kubernetes.io` and `k8s.io` domains (and their subdomains) a kubelet may set only the keys
of the NodeRestriction admission plugin (KEP-279; `IsKubeletLabel` upstream):
`kubernetes.io/arch`, `kubernetes.io/os`, the instance-type and topology zone/region keys
(and their beta forms), and the `node.kubernetes.io/` and `kubelet.kubernetes.io/`
namespaces; EKS, OKE and ROSA pass pool labels to the kubelet, so anything else there keeps
the nodes from registering. `kubernetes.io/hostname` stays restricted although kubelets may
set it: on a pool it would give every node the same hostname label. Other domains are free
(`karpenter.sh/controller` on an EKS node group is fine). A Karpenter NodePool's labels are
also held to the CRD's own key rules (its restricted `karpenter.sh` / `karpenter.k8s.aws`
domains and keys). Policy config `allowedKeys` adds organisation-specific exceptions.
"""

from __future__ import annotations

from nodepools.policies.engine_values import items
from nodepools.policies.resources import pool_view
from nodepools.specs.core.labels import restricted_domain
from nodepools.specs.karpenter.restrictions import restricted_label_problem
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
        if key in allowed:
            continue
        domain = restricted_domain(key)
        if domain is not None:
            report(
                f"`{pool.path('labels')}`: pool '{pool.name}' sets label `{key}`, which the "
                f"kubelet refuses on its node (a key of the `{domain}` domain; use your own "
                "prefix, or add the key to policy config `allowedKeys`)",
                None,
            )
        elif pool.platform == "karpenter" and (problem := restricted_label_problem(key)):
            report(
                f"`{pool.path('labels')}`: pool '{pool.name}' sets label `{key}`: {problem}",
                None,
            )


restricted_label_domains = ResourceValidationPolicy(
    name="restricted-label-domains",
    description=(
        "Node pool labels avoid the kubernetes.io and k8s.io keys the kubelet may not set "
        "(and, on Karpenter NodePools, the keys the NodePool CRD restricts)."
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
