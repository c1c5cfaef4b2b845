"""Provider resources and invokes made exactly as the provider SDK's typed classes make them.

A typed class such as `pulumi_aws.eks.NodeGroup` adds three things to a bare
`pulumi.CustomResource`: its package's provider version and download URL in the options,
the translation of its Python argument names into the provider's camelCase names, and an
Output for every property it declares. Going through it costs a plan twice. Cold: the
first `aws.eks.NodeGroup` loads all of `pulumi_aws.eks` (about 50 ms) and the first
`oci.containerengine.NodePool` all of `pulumi_oci.containerengine` (about 45 ms), more
than a CI plan of a 120-pool fleet spends in our own code. Warm: the typed arguments are
converted and about 30 Outputs made per registration, which nothing here reads
(benchmarks/README.md, issue 19, has the counts).

So the node groups and their autoscaler tags, launch templates, security and placement
groups, node IAM roles, OKE node pools and add-ons, objects of built-in Kubernetes kinds
(a recipe's Deployment, governance's Namespaces, RBAC and admission policies) and of custom
resource kinds (Karpenter, Kueue), Helm releases and the EKS invokes are made here with
the camelCase names and the options the typed class would send. Nothing else about them
changes: the same type token, inputs, options, dependencies and provider reach the engine,
field for field; tests/backends/test_provider_resource.py runs every engine-matrix
program and example stack both ways and compares the requests, and
tests/engines/test_sdk_faithfulness.py checks every name and value kind against the
pinned SDK's input types. Nested blocks leave out what is unset, as the typed `*Args`
classes do (`present`).
"""

from __future__ import annotations

import copy
import functools
import importlib
import importlib.util
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, cast

import pulumi

_SEMVER_RELEASE = re.compile(r"\d+\.\d+\.\d+")


def sdk_invoke_defaults(package: str) -> pulumi.InvokeOptions:
    """The options every typed invoke (data source) of `package` (e.g. "pulumi_aws") sends:
    the installed SDK's provider version and plugin download URL, so the engine calls the
    same provider plugin as the SDK's functions would."""
    version, download_url = _plugin(package)
    return pulumi.InvokeOptions(version=version, plugin_download_url=download_url)


@functools.cache
def _plugin(package: str) -> tuple[str | None, str | None]:
    """The provider version and download URL the package's typed classes send.

    Both are generated into the package from its `pulumi-plugin.json` (the file the CLI
    reads to find the plugin): `version`, and `server` when the plugin is not on Pulumi's
    own server. Read from there, so that the package itself is not imported: importing
    `pulumi_aws` loads 270 modules (about 40 ms), more than a plan of 48 node groups
    spends in our code. A package without the file is asked through its `_utilities`;
    the test compares both ways on the pinned SDKs.
    """
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / "pulumi-plugin.json"
        if path.is_file():
            plugin = json.loads(path.read_text())
            version = plugin.get("version")
            if isinstance(version, str) and _SEMVER_RELEASE.fullmatch(version):
                return version, plugin.get("server")
    # A pre-release (its semver form is the package's to compute) or no plugin file.
    defaults = importlib.import_module(f"{package}._utilities").get_resource_opts_defaults()
    return defaults.version, defaults.plugin_download_url


def present(**fields: Any) -> dict[str, Any]:
    """A nested block with its unset (None) fields left out, as a typed `*Args` sends it
    (a None inside a plain dict would reach the provider as an explicit null)."""
    return {key: value for key, value in fields.items() if value is not None}


def kubernetes_type(api_version: str, kind: str) -> str:
    """pulumi_kubernetes's type token of a kind: `kubernetes:<group>/<version>:<kind>`, the
    core group's `v1` written `core/v1`."""
    group_version = api_version if "/" in api_version else f"core/{api_version}"
    return f"kubernetes:{group_version}:{kind}"


def object_name(resource: ProviderResource) -> pulumi.Output[str]:
    """`metadata.name` of a Kubernetes object (`KubernetesObject`, `KubernetesCustomObject`),
    from its metadata as the provider returns it (a dict, camelCase keys)."""
    return resource.output("metadata").apply(lambda metadata: cast("str", metadata["name"]))


class ProviderResource(pulumi.CustomResource):
    """A custom resource registered as the typed class of `TYPE` in `PACKAGE` registers it.

    Subclasses name the type token, the SDK package and the output properties they read
    back (`READ`, camelCase); inputs are given by their camelCase names, None for unset.
    """

    TYPE: ClassVar[str]
    PACKAGE: ClassVar[str]
    # Output properties read back through `output`; every other output is left to the
    # engine's state (the typed class would make an unread Output for each).
    READ: ClassVar[tuple[str, ...]] = ()
    # pulumi_aws and pulumi_oci merge their defaults under the caller's options (a version
    # given wins); pulumi_kubernetes's CustomResource sets its own version over them.
    SDK_VERSION_WINS: ClassVar[bool] = False

    def __init__(
        self,
        name: str,
        inputs: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        # Unset inputs are never sent (the SDK drops a top-level None); leaving them out
        # here only saves an Output each.
        props: dict[str, Any] = {key: value for key, value in inputs.items() if value is not None}
        for key in self.READ:
            props.setdefault(key, None)
        super().__init__(self.type_of(props), name, props, self._options(opts, props))

    def _options(
        self, opts: pulumi.ResourceOptions | None, inputs: Mapping[str, Any]
    ) -> pulumi.ResourceOptions:
        """`opts` with the SDK's version and download URL, as the typed class merges them.

        The defaults set nothing but those two, so merging them (`ResourceOptions.merge`,
        15 µs: it copies both objects and rebuilds every list option) comes down to a copy
        of `opts` with the two filled in: unset ones (pulumi_aws, pulumi_oci), or the
        version always (pulumi_kubernetes).
        """
        version, download_url = _plugin(self.PACKAGE)
        options = copy.copy(opts) if opts is not None else pulumi.ResourceOptions()
        if self.SDK_VERSION_WINS or options.version is None:
            options.version = version
        if not self.SDK_VERSION_WINS and options.plugin_download_url is None:
            options.plugin_download_url = download_url
        return options

    @classmethod
    def type_of(cls, inputs: Mapping[str, Any]) -> str:
        """The type token registered for `inputs` (the class's own, but see below)."""
        return cls.TYPE

    def output(self, key: str) -> pulumi.Output[Any]:
        """The output property `key` (one of `READ`, or an input given)."""
        return cast("pulumi.Output[Any]", getattr(self, key))


class EksNodeGroup(ProviderResource):
    """`aws:eks/nodeGroup:NodeGroup`, as `pulumi_aws.eks.NodeGroup` registers it."""

    TYPE = "aws:eks/nodeGroup:NodeGroup"
    PACKAGE = "pulumi_aws"
    # The Auto Scaling group EKS made for the group (the scale-from-zero tags go on it).
    READ = ("resources",)


class OkeNodePool(ProviderResource):
    """`oci:ContainerEngine/nodePool:NodePool`, as `pulumi_oci.containerengine.NodePool`
    registers it."""

    TYPE = "oci:ContainerEngine/nodePool:NodePool"
    PACKAGE = "pulumi_oci"


class OkeAddon(ProviderResource):
    """`oci:ContainerEngine/addon:Addon`, as `pulumi_oci.containerengine.Addon` registers
    it."""

    TYPE = "oci:ContainerEngine/addon:Addon"
    PACKAGE = "pulumi_oci"


class Ec2LaunchTemplate(ProviderResource):
    """`aws:ec2/launchTemplate:LaunchTemplate`, as `pulumi_aws.ec2.LaunchTemplate` registers
    it."""

    TYPE = "aws:ec2/launchTemplate:LaunchTemplate"
    PACKAGE = "pulumi_aws"
    # The version a node group references (a new version rolls the nodes).
    READ = ("latestVersion",)


class Ec2SecurityGroup(ProviderResource):
    """`aws:ec2/securityGroup:SecurityGroup`, as `pulumi_aws.ec2.SecurityGroup` registers it.
    (The typed class fills in `description` "Managed by Pulumi" when none is given; the
    group made here always has one.)"""

    TYPE = "aws:ec2/securityGroup:SecurityGroup"
    PACKAGE = "pulumi_aws"


class Ec2PlacementGroup(ProviderResource):
    """`aws:ec2/placementGroup:PlacementGroup`, as `pulumi_aws.ec2.PlacementGroup` registers
    it."""

    TYPE = "aws:ec2/placementGroup:PlacementGroup"
    PACKAGE = "pulumi_aws"
    # Auto-named by the provider; a launch template places its instances by this name.
    READ = ("name",)


class VpcSecurityGroupIngressRule(ProviderResource):
    """`aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule`, as
    `pulumi_aws.vpc.SecurityGroupIngressRule` registers it."""

    TYPE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
    PACKAGE = "pulumi_aws"


class VpcSecurityGroupEgressRule(ProviderResource):
    """`aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule`, as
    `pulumi_aws.vpc.SecurityGroupEgressRule` registers it."""

    TYPE = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
    PACKAGE = "pulumi_aws"


class IamRole(ProviderResource):
    """`aws:iam/role:Role`, as `pulumi_aws.iam.Role` registers it."""

    TYPE = "aws:iam/role:Role"
    PACKAGE = "pulumi_aws"
    # Named by prefix, so both are known only once AWS made the role.
    READ = ("arn", "name")


class IamRolePolicyAttachment(ProviderResource):
    """`aws:iam/rolePolicyAttachment:RolePolicyAttachment`, as
    `pulumi_aws.iam.RolePolicyAttachment` registers it."""

    TYPE = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
    PACKAGE = "pulumi_aws"


class KubernetesObject(ProviderResource):
    """An object of a built-in Kubernetes kind, as its typed pulumi_kubernetes class
    (`pulumi_kubernetes.apps.v1.Deployment`, ...) registers it: type token
    `kubernetes:<group>/<version>:<kind>` (`core` for the core group's `v1`), the manifest's
    top-level fields as inputs, and the aliases the class adds for the kind's earlier API
    versions (so a stack made with those versions adopts the object instead of replacing it).

    Only the kinds in `KINDS` are made this way: for any other built-in kind the aliases
    would be unknown, so it is refused rather than registered without them."""

    TYPE = "kubernetes:<group>/<version>:<kind>"
    PACKAGE = "pulumi_kubernetes"
    READ = ("metadata",)
    # (apiVersion, kind) -> the earlier versions the typed class aliases, in its order
    # (pulumi_kubernetes 4.x; the comparison test checks them against the pinned SDK).
    KINDS: ClassVar[dict[tuple[str, str], tuple[str, ...]]] = {
        ("v1", "Namespace"): (),
        ("v1", "PodTemplate"): (),
        ("v1", "Service"): (),
        ("apps/v1", "Deployment"): ("apps/v1beta1", "apps/v1beta2", "extensions/v1beta1"),
        ("policy/v1", "PodDisruptionBudget"): ("policy/v1beta1",),
        ("rbac.authorization.k8s.io/v1", "Role"): (
            "rbac.authorization.k8s.io/v1alpha1",
            "rbac.authorization.k8s.io/v1beta1",
        ),
        ("rbac.authorization.k8s.io/v1", "RoleBinding"): (
            "rbac.authorization.k8s.io/v1alpha1",
            "rbac.authorization.k8s.io/v1beta1",
        ),
        ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"): (
            "admissionregistration.k8s.io/v1alpha1",
            "admissionregistration.k8s.io/v1beta1",
        ),
        ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding"): (
            "admissionregistration.k8s.io/v1alpha1",
            "admissionregistration.k8s.io/v1beta1",
        ),
    }

    def _options(
        self, opts: pulumi.ResourceOptions | None, inputs: Mapping[str, Any]
    ) -> pulumi.ResourceOptions:
        options = super()._options(opts, inputs)  # a copy
        kind = inputs["kind"]
        earlier = self.KINDS[(inputs["apiVersion"], kind)]
        if earlier:
            # The typed class merges its aliases after the caller's (ResourceOptions.merge).
            options.aliases = [
                *(options.aliases or []),
                *(pulumi.Alias(type_=kubernetes_type(version, kind)) for version in earlier),
            ]
        return options

    @classmethod
    def type_of(cls, inputs: Mapping[str, Any]) -> str:
        api_version, kind = inputs["apiVersion"], inputs["kind"]
        if (api_version, kind) not in cls.KINDS:
            raise ValueError(
                f"no typed pulumi_kubernetes class known for {api_version} {kind}: its "
                "aliases would be missing"
            )
        return kubernetes_type(api_version, kind)


class HelmRelease(ProviderResource):
    """`kubernetes:helm.sh/v3:Release`, as `pulumi_kubernetes.helm.v3.Release` registers it:
    the class always sends `compat: "true"` beside the given inputs."""

    TYPE = "kubernetes:helm.sh/v3:Release"
    PACKAGE = "pulumi_kubernetes"

    def __init__(
        self,
        name: str,
        inputs: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        super().__init__(name, {**inputs, "compat": "true"}, opts)


class KubernetesCustomObject(ProviderResource):
    """An object of a custom resource kind (Karpenter's NodePool, Kueue's ClusterQueue, ...),
    as `pulumi_kubernetes.apiextensions.CustomResource` registers it: type token
    `kubernetes:<apiVersion>:<kind>`, inputs `apiVersion`, `kind`, `metadata`, `spec`."""

    TYPE = "kubernetes:<apiVersion>:<kind>"
    PACKAGE = "pulumi_kubernetes"
    READ = ("metadata",)
    SDK_VERSION_WINS = True

    @classmethod
    def type_of(cls, inputs: Mapping[str, Any]) -> str:
        return kubernetes_type(inputs["apiVersion"], inputs["kind"])


def sdk_invoke(package: str, token: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """Call the provider function `token` as the typed function of `package` calls it
    (same token, arguments by camelCase name, version options); its result as the provider
    returns it (camelCase keys), not wrapped in the SDK's result class."""
    result = pulumi.runtime.invoke(
        token,
        {key: value for key, value in args.items() if value is not None},
        opts=sdk_invoke_defaults(package),
    )
    return cast("dict[str, Any]", result.value or {})
