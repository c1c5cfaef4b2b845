"""The tags an EKS pool puts on AWS resources, counted against AWS's limits before anything
is registered.

An autoscaled pool's Auto Scaling group gets one cluster-autoscaler node-template tag per
node label, taint and advertised resource (scale from zero: with no node to look at, the
autoscaler builds a template node from them; EKS copies no label or taint there itself).
EKS puts its own five on every managed node group's Auto Scaling group (`eks:cluster-name`,
`eks:nodegroup-name`, `kubernetes.io/cluster/<cluster>`, `k8s.io/cluster-autoscaler/enabled`,
`k8s.io/cluster-autoscaler/<cluster>`); `aws:` tags don't count. An Auto Scaling group holds
at most 50 tags (Amazon EC2 Auto Scaling user guide, "Tag Auto Scaling groups and
instances"), so a pool with more is refused here rather than half-applied by `up`.
"""

from __future__ import annotations

import re

from nodepools.specs.catalog.accelerators import AMD_GPU, NVIDIA_GPU
from nodepools.specs.core.aws_tags import MAX_TAGS
from nodepools.specs.core.base import Issue, SpecError
from nodepools.specs.core.labels import LABEL_VALUE_MAX
from nodepools.specs.pools.resolve import ResolvedPool
from nodepools.specs.pools.resolved_checks import resolved_pool_issues

CA_TEMPLATE = "k8s.io/cluster-autoscaler/node-template"
# The tags EKS itself puts on a managed node group's Auto Scaling group (see above).
EKS_ASG_TAGS = 5

# The cluster autoscaler's AWS provider knows a GPU node by this label (its `GPULabel`):
# with it, a node whose device plugin has not yet advertised its GPUs counts as a GPU node
# still starting, rather than one without GPUs, and the autoscaler does not scale up again
# for the same pending pods. The value names the GPU.
GPU_NODE_LABEL = "k8s.amazonaws.com/accelerator"

# A run of what a label value can't hold (with any `-` around it): one `-` stands for it.
_NOT_IN_LABEL_VALUE = re.compile(r"[^a-z0-9._]+")


def gpu_label_value(vendor: str, model: str) -> str:
    """`<vendor>-<model>` lowercase (`nvidia-a10g`), always a valid label value: `model` is
    free text (`RTX PRO 6000 Blackwell`), so each run of characters a label value can't
    hold becomes one `-` (`nvidia-rtx-pro-6000-blackwell`), and the value is cut to 63
    characters and ends trimmed to alphanumerics. EKS refuses the node group (and a custom
    AMI's kubelet its `--node-labels`) for any other value."""
    text = f"{vendor}-{model}".lower() if model else vendor
    value = _NOT_IN_LABEL_VALUE.sub("-", text)[:LABEL_VALUE_MAX]
    return value.strip("-_.")


def node_labels(pool: ResolvedPool) -> dict[str, str]:
    """The node group's labels: the pool's, plus the autoscaler's GPU label on GPU pools
    (unless `gpu_node_label` is false; a value of it in the pool's labels wins)."""
    accelerator = pool.accelerator
    if (
        not pool.gpu_node_label
        or accelerator is None
        or accelerator.resource not in (NVIDIA_GPU, AMD_GPU)
    ):
        return dict(pool.labels)
    vendor = "amd" if accelerator.resource == AMD_GPU else "nvidia"
    labels = {GPU_NODE_LABEL: gpu_label_value(vendor, accelerator.model), **pool.labels}
    return dict(sorted(labels.items()))


def _resource_tags(pool: ResolvedPool) -> dict[str, str]:
    tags: dict[str, str] = {}
    # What a node advertises once its device software runs (MIG slices, time-sliced GPUs):
    # a pending pod asking for it scales the group from zero only if the template has it.
    accelerator = pool.node_accelerator
    if accelerator is not None:
        tags[f"{CA_TEMPLATE}/resources/{accelerator.resource}"] = str(accelerator.count)
    # Pods asking for EFA interfaces scale a group from zero only if its template has them.
    for resource, count in pool.extra_limits.items():
        tags[f"{CA_TEMPLATE}/resources/{resource}"] = str(count)
    return tags


def autoscaler_node_template_tags(pool: ResolvedPool) -> dict[str, str]:
    """Tags that let cluster-autoscaler scale the group from zero (see above)."""
    tags = {f"{CA_TEMPLATE}/label/{key}": value for key, value in node_labels(pool).items()}
    for taint in pool.taints:
        tags[f"{CA_TEMPLATE}/taint/{taint.key}"] = f"{taint.value or ''}:{taint.effect}"
    tags.update(_resource_tags(pool))
    return dict(sorted(tags.items()))


def asg_tag_issues(pool: ResolvedPool) -> list[Issue]:
    """An autoscaled pool whose Auto Scaling group would carry more than 50 tags, with
    what contributes to the count."""
    if not pool.autoscaled:
        return []
    labels, taints = node_labels(pool), {t.key for t in pool.taints}
    resources = _resource_tags(pool)
    total = len(autoscaler_node_template_tags(pool)) + EKS_ASG_TAGS
    if total <= MAX_TAGS:
        return []
    added = " and the GPU's `" + GPU_NODE_LABEL + "`" if len(labels) > len(pool.labels) else ""
    parts = [
        f"{len(labels)} label(s) (the pool's defaults{added} included)",
        f"{len(taints)} taint(s)",
        f"{len(resources)} resource(s)",
        f"the {EKS_ASG_TAGS} tags EKS puts there itself",
    ]
    return [
        Issue(
            "labels",
            f"autoscaled pool {pool.pool_name!r} would put {total} tags on its Auto Scaling "
            f"group, and AWS allows {MAX_TAGS}: one scale-from-zero tag "
            f"(`{CA_TEMPLATE}/...`) per label, taint and resource, counted: "
            f"{', '.join(parts)}; remove {total - MAX_TAGS} labels or taints, or use fixed "
            "`replicas` (a pool that isn't autoscaled gets none)",
        )
    ]


def check_eks_pool(pool: ResolvedPool) -> None:
    """Raise SpecError with everything EKS and AWS refuse of the resolved pool."""
    issues = [*resolved_pool_issues(pool), *asg_tag_issues(pool)]
    if issues:
        raise SpecError(f"pool {pool.component_name!r}", issues)
