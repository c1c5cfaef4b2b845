"""Rendered manifests reach pulumi_kubernetes's typed classes: a built-in kind its own class
(with its aliases for earlier API versions), any other kind CustomResource."""

from __future__ import annotations

import pulumi
import pytest
from nodepools.backends.kubernetes import built_in_class, custom_object, register_object
from nodepools.offline import run
from pulumi_kubernetes.apps.v1 import StatefulSet
from pulumi_kubernetes.core.v1 import Namespace
from pulumi_kubernetes.rbac.v1 import RoleBinding


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        ("v1", "Namespace", Namespace),
        ("apps/v1", "StatefulSet", StatefulSet),
        ("rbac.authorization.k8s.io/v1", "RoleBinding", RoleBinding),
        ("kueue.x-k8s.io/v1beta2", "ClusterQueue", None),
        ("karpenter.sh/v1", "NodePool", None),
    ],
)
def test_a_kind_finds_its_typed_class(api_version, kind, expected):
    assert built_in_class(api_version, kind) is expected


@pytest.mark.parametrize(
    ("api_version", "kind"), [("apps/v1", "Widget"), ("apps/v9", "Deployment")]
)
def test_a_built_in_kind_the_sdk_lacks_is_refused(api_version, kind):
    with pytest.raises(ValueError, match=kind):
        built_in_class(api_version, kind)


def test_top_level_fields_become_the_classes_arguments():
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "read", "namespace": "ml"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "read"},
        "subjects": [{"kind": "Group", "name": "ml", "apiGroup": "rbac.authorization.k8s.io"}],
    }
    capture = run(lambda: register_object("read", binding, pulumi.ResourceOptions()))
    [resource] = capture.by_type("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding")
    assert resource.inputs == binding
    assert {a["spec"]["type"] for a in resource.options["aliases"]} == {
        "kubernetes:rbac.authorization.k8s.io/v1alpha1:RoleBinding",
        "kubernetes:rbac.authorization.k8s.io/v1beta1:RoleBinding",
    }


def test_a_custom_object_takes_metadata_and_spec_only():
    manifest = {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}}
    with pytest.raises(ValueError, match="data"):
        custom_object("t", {**manifest, "data": {}}, pulumi.ResourceOptions())
