"""Kubernetes label syntax, and the label keys this library owns (one place for all)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

# The identity label every pool's nodes carry; scheduling info selects on it, so a
# workload lands on that pool and no other.
POOL_LABEL = "nodepools.dev/pool"
# Marks nodes of a SharedNodePool (long-lived, shared by recipes).
SHARED_POOL_LABEL = "nodepools.dev/shared-pool"
# The optional selector a SharedNodePool is published under for recipes to match.
POOL_SELECTOR_LABEL = "nodepools.dev/pool-selector"
# Marks the pods of a Recipe (its Deployment's selector and its Service's).
RECIPE_LABEL = "nodepools.dev/recipe"
# Kubernetes' well-known node label holding the instance type (the OCI shape on OKE);
# recipes still waiting for a shared pool select on it.
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
# Freeform tags holding autoscaling bounds where a cloud's pool has only a size (OKE).
MIN_NODES_TAG = "nodepools.dev/min-nodes"
MAX_NODES_TAG = "nodepools.dev/max-nodes"
# PoolQuotas: the Run:ai department and project a namespace belongs to.
DEPARTMENT_LABEL = "nodepools.dev/department"
PROJECT_LABEL = "nodepools.dev/project"
# PoolPlatforms: the platform (machine type) a PodTemplate and its pods are for, and the
# annotation marking the pool's default platform.
PLATFORM_LABEL = "nodepools.dev/platform"
DEFAULT_PLATFORM_ANNOTATION = "nodepools.dev/default-platform"

# Kubernetes' longest label value (and name part of a key): 63 characters.
LABEL_VALUE_MAX = 63

_NAME = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


# What a kubelet may set on its own Node (`IsKubeletLabel` of k8s.io/kubelet
# pkg/apis/well_known_labels.go, enforced by `--node-labels` and the NodeRestriction admission
# plugin, KEP-279): in the `kubernetes.io` and `k8s.io` domains (and their subdomains) only
# these keys and the `kubelet.kubernetes.io` / `node.kubernetes.io` namespaces. EKS, OKE and
# ROSA pass pool labels to the kubelet, so a pool label outside them never reaches its nodes
# (the node fails to register). Every other domain is free for the kubelet, `karpenter.sh`
# included: e.g. EKS blueprints mark the node group running Karpenter's controller with
# `karpenter.sh/controller: "true"`. Karpenter NodePools have their CRD's own rules on top
# (nodepools.specs.karpenter.restrictions).
KUBELET_DOMAINS = ("kubernetes.io", "k8s.io")
KUBELET_LABELS = frozenset(
    {
        "kubernetes.io/hostname",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
        "beta.kubernetes.io/instance-type",
        "node.kubernetes.io/instance-type",
        "kubernetes.io/os",
        "kubernetes.io/arch",
        "beta.kubernetes.io/os",
        "beta.kubernetes.io/arch",
    }
)
KUBELET_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")
# A kubelet may set it, but a pool-wide value would give every node the same hostname label
# and break per-node topology spreading (and `kubernetes.io/hostname` selectors).
HOSTNAME_LABEL = "kubernetes.io/hostname"


def _in_namespace(prefix: str, namespace: str) -> bool:
    return prefix == namespace or prefix.endswith("." + namespace)


def is_kubelet_label(key: str) -> bool:
    """Whether a kubelet may set `key` on its own Node (the upstream `IsKubeletLabel`)."""
    if key in KUBELET_LABELS:
        return True
    prefix = key.split("/", 1)[0] if "/" in key else ""
    return any(_in_namespace(prefix, namespace) for namespace in KUBELET_NAMESPACES)


def restricted_domain(key: str, allowed_keys: frozenset[str] = frozenset()) -> str | None:
    """The reserved domain (`kubernetes.io` or `k8s.io`) that keeps `key` off a pool's nodes,
    or None when a pool may carry it. `kubernetes.io/hostname` is refused too (see above)."""
    if "/" not in key or key in allowed_keys:
        return None
    prefix = key.split("/", 1)[0]
    domain = next((d for d in KUBELET_DOMAINS if _in_namespace(prefix, d)), None)
    if domain is None:
        return None
    if key == HOSTNAME_LABEL or not is_kubelet_label(key):
        return domain
    return None


def kubelet_label_problem(key: str) -> str | None:
    """Why a pool can't put `key` on its nodes, or None."""
    domain = restricted_domain(key)
    if domain is None:
        return None
    if key == HOSTNAME_LABEL:
        return (
            f"label {key!r} is set by each kubelet to its own node's name; a pool-wide value "
            "would give every node the same hostname label"
        )
    return (
        f"label {key!r} is in the reserved `{domain}` domain: the kubelet refuses to set it on "
        "its node (it may set only kubernetes.io/arch, kubernetes.io/os, the instance-type and "
        "topology keys and the node.kubernetes.io/ and kubelet.kubernetes.io/ namespaces "
        "there); use your own prefix"
    )


def label_key_problem(key: object) -> str | None:
    """Why `key` is not a Kubernetes qualified name, or None when it is."""
    if not isinstance(key, str) or not key:
        return f"label key {key!r} must be a non-empty string"
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        return (
            f"label key {key!r} has an invalid prefix {prefix!r}: it must be a DNS "
            "subdomain (lowercase alphanumerics, '-' and '.', at most 253 characters)"
        )
    if len(name) > 63 or not _NAME.fullmatch(name):
        return (
            f"label key {key!r} is not a qualified name: the name part must be 1 to 63 "
            "alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric"
        )
    return None


def label_value_problem(value: object) -> str | None:
    """Why `value` is not a Kubernetes label value, or None when it is."""
    if not isinstance(value, str):
        return f"label value {value!r} must be a string"
    if len(value) > LABEL_VALUE_MAX:
        return (
            f"label value {value!r} is {len(value)} characters long; at most "
            f"{LABEL_VALUE_MAX} are allowed"
        )
    if value and not _NAME.fullmatch(value):
        return (
            f"label value {value!r} must be empty or alphanumerics, '-', '_' or '.', "
            "starting and ending with an alphanumeric"
        )
    return None


def _check_key(key: str) -> str:
    problem = label_key_problem(key)
    if problem:
        raise ValueError(problem)
    return key


def _check_value(value: str) -> str:
    problem = label_value_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _sorted(labels: dict[str, str]) -> dict[str, str]:
    # Sorted once here so every rendering downstream is independent of input order.
    return dict(sorted(labels.items()))


LabelKey = Annotated[str, AfterValidator(_check_key)]
LabelValue = Annotated[str, AfterValidator(_check_value)]
Labels = Annotated[dict[LabelKey, LabelValue], AfterValidator(_sorted)]
