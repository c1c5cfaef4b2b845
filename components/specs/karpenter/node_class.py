"""The EC2NodeClass a KarpenterNodePool creates: IAM identity, AMI, network, disk, tags.

Rules mirror the `karpenter.k8s.aws/v1` EC2NodeClass CRD (v1.14.1) so that mistakes are
reported with their arg path; the rendered manifest is validated against the CRD as well.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from nodepools.json_values import is_dict
from nodepools.specs.core.aws_tags import MAX_TAGS, aws_tag_problem
from nodepools.specs.core.base import SpecModel, wired
from nodepools.specs.core.kube import KubeObjectName
from nodepools.specs.karpenter.restrictions import restricted_tag_problem
from pydantic import AfterValidator, BeforeValidator, Field, field_validator, model_validator

# gp3, which the node class uses for the boot volume, goes up to 16 TiB.
BOOT_VOLUME_GB = (1, 16384)

_ROLE_NAME = re.compile(r"^[\w+=,.@-]{1,64}$", re.ASCII)
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/")
_PROFILE_NAME = re.compile(r"^[\w+=,.@-]{1,128}$", re.ASCII)
# The CRD's amiSelectorTerms[].alias rules.
_ALIAS = re.compile(r"^(?P<family>[a-zA-Z0-9]+)@(?P<version>.+)$")
_ALIAS_FAMILIES = ("al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025")
_ALIAS_MAX = 30
# EC2 image names: 3 to 128 letters, digits and `()[] ./-'@_` (RegisterImage). A selector
# term's name is an EC2 DescribeImages `name` filter, where `*` and `?` are wildcards; a
# pattern with a wildcard may be shorter than a name (`*` selects every name).
_AMI_NAME = re.compile(r"^[A-Za-z0-9()\[\] ./\-'@_*?]+$")
_AMI_NAME_LENGTH = (3, 128)
# The CRD's capacityReservationSelectorTerms[] patterns.
_RESERVATION_ID = re.compile(r"^cr-[0-9a-z]+$")
_OWNER_ID = re.compile(r"^[0-9]{12}$")


def _selector_term(tags: dict[str, str]) -> dict[str, str]:
    if not tags:
        raise ValueError("a selector term needs at least one tag (got {})")
    if len(tags) > 20:
        raise ValueError(f"a selector term matches at most 20 tags (got {len(tags)})")
    for key, value in tags.items():
        if problem := aws_tag_problem(key, value, selector=True):
            raise ValueError(problem)
    return dict(sorted(tags.items()))


def _as_terms(value: Any) -> Any:
    # One mapping is one term; a list of mappings is several terms, ORed by Karpenter.
    return [value] if is_dict(value) else value


def _sorted_terms(terms: list[dict[str, str]]) -> list[dict[str, str]]:
    if not terms:
        raise ValueError("needs at least one selector term (got [])")
    # Terms are ORed, so their order carries no meaning; sorted, equal ones merged.
    unique = {tuple(term.items()): term for term in terms}
    if len(unique) > 30:
        raise ValueError(f"at most 30 selector terms are allowed (got {len(unique)})")
    return [unique[key] for key in sorted(unique)]


SelectorTerms = Annotated[
    list[Annotated[dict[str, str], AfterValidator(_selector_term)]],
    BeforeValidator(_as_terms),
    AfterValidator(_sorted_terms),
]


# Tags Karpenter puts on every instance besides the node class's (v1.14.1: utils.GetTags
# and the nodeclaim tagging controller); `Name` only when the class does not set it.
KARPENTER_INSTANCE_TAGS = (
    "kubernetes.io/cluster/<cluster>",
    "karpenter.sh/nodepool",
    "eks:eks-cluster-name",
    "karpenter.k8s.aws/ec2nodeclass",
    "karpenter.sh/nodeclaim",
    "Name",
)


def _instance_tags(tags: dict[str, str]) -> dict[str, str]:
    for key, value in tags.items():
        problem = restricted_tag_problem(key) or aws_tag_problem(key, value, selector=False)
        if problem:
            raise ValueError(problem)
    added = len(KARPENTER_INSTANCE_TAGS) - ("Name" in tags)
    if len(tags) + added > MAX_TAGS:
        raise ValueError(
            f"{len(tags)} tags are too many: Karpenter adds {added} of its own to every instance "
            f"({', '.join(KARPENTER_INSTANCE_TAGS)}) and EC2 allows {MAX_TAGS}, so at most "
            f"{MAX_TAGS - added} here"
        )
    return dict(sorted(tags.items()))


InstanceTags = Annotated[dict[str, str], AfterValidator(_instance_tags)]


def ami_family(alias: str) -> str:
    return alias.split("@", 1)[0]


AmiFamily = Literal[
    "AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"
]
# The CRD's blockDeviceMappings[].ebs.volumeSize pattern: up to 64 TB in G/Gi/T/Ti.
_VOLUME_SIZE = re.compile(
    r"^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|"
    r"(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|"
    r"([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$"
)


class AmiSelectorTerm(SpecModel):
    """One `amiSelectorTerms[]` entry other than an alias: an AMI id, or a name/owner/tags
    lookup, or an SSM parameter."""

    id: str | None = Field(
        default=None, pattern=r"^ami-[0-9a-z]+$", description="AMI id. Default None."
    )
    name: str | None = Field(
        default=None,
        description="AMI name as EC2 names images (3..128 letters, digits and `()[] ./-'@_`), "
        "or a pattern with `*`/`?` wildcards, e.g. `amazon-eks-node-al2023-*`. Default None.",
    )
    owner: str | None = Field(
        default=None, description="AMI owner: an account id, `self` or `amazon`. Default None."
    )
    tags: dict[str, str] | None = Field(
        default=None, description="Tags the AMI must have. Default None."
    )
    ssm_parameter: str | None = Field(
        default=None, description="SSM parameter holding the AMI id. Default None."
    )

    @field_validator("name")
    @classmethod
    def _ami_name(cls, name: str | None) -> str | None:
        if name is None:
            return None
        least = 1 if ("*" in name or "?" in name) else _AMI_NAME_LENGTH[0]
        if not least <= len(name) <= _AMI_NAME_LENGTH[1] or not _AMI_NAME.fullmatch(name):
            raise ValueError(
                f"{name!r} is not an EC2 AMI name: {_AMI_NAME_LENGTH[0]} to "
                f'{_AMI_NAME_LENGTH[1]} letters, digits and "()[] ./-\'@_" characters, with '
                "`*` or `?` as wildcards"
            )
        return name

    @model_validator(mode="after")
    def _something(self) -> AmiSelectorTerm:
        given = [f for f in ("id", "name", "tags", "ssm_parameter") if getattr(self, f) is not None]
        if not given:
            raise ValueError("expected at least one of `id`, `name`, `tags`, `ssm_parameter`")
        if self.id is not None and (len(given) > 1 or self.owner is not None):
            raise ValueError("`id` is mutually exclusive with the other fields of a term")
        return self

    def to_manifest(self) -> dict[str, Any]:
        keys = {"id": "id", "name": "name", "owner": "owner", "tags": "tags"}
        term = {out: getattr(self, f) for f, out in keys.items() if getattr(self, f) is not None}
        if self.ssm_parameter is not None:
            term["ssmParameter"] = self.ssm_parameter
        return term


def _annotations(annotations: dict[str, str]) -> dict[str, str]:
    from nodepools.validation.names import ANNOTATIONS_MAX_BYTES, is_qualified_name

    for key in annotations:
        # The API server lowers annotation keys before checking them (objectmeta.go).
        if problems := is_qualified_name(key.lower()):
            raise ValueError(f"annotation key {key!r}: {problems[0]}")
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > ANNOTATIONS_MAX_BYTES:
        raise ValueError(
            f"annotations take {size} bytes; the API server allows {ANNOTATIONS_MAX_BYTES}"
        )
    return dict(sorted(annotations.items()))


# `metadata.annotations` of an object, as the API server checks them.
Annotations = Annotated[dict[str, str], AfterValidator(_annotations)]


class CapacityReservationTerm(SpecModel):
    """One `capacityReservationSelectorTerms[]` entry: a reservation id, or tags (optionally
    of one owner account) and/or the reservations' instance match criteria."""

    id: str | None = Field(
        default=None, description="Capacity reservation id, `cr-...`. Default None."
    )
    tags: dict[str, str] | None = Field(
        default=None,
        description="Tags the reservations must all have (`*` matches any value). Default None.",
    )
    owner_id: str | None = Field(
        default=None,
        description="12-digit account id owning the reservations (with `tags`). Default None.",
    )
    instance_match_criteria: Literal["open", "targeted"] | None = Field(
        default=None,
        description="`open` or `targeted` reservations. Default None (either).",
    )

    @field_validator("id")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        if value is not None and not _RESERVATION_ID.fullmatch(value):
            raise ValueError(f"{value!r} is not a capacity reservation id such as 'cr-0123abcd'")
        return value

    @field_validator("owner_id")
    @classmethod
    def _owner(cls, value: str | None) -> str | None:
        if value is not None and not _OWNER_ID.fullmatch(value):
            raise ValueError(f"{value!r} is not a 12-digit AWS account id")
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, tags: dict[str, str] | None) -> dict[str, str] | None:
        return None if tags is None else _selector_term(tags)

    @model_validator(mode="after")
    def _crd_rules(self) -> CapacityReservationTerm:
        # The CRD's rules on the terms, in its words.
        if self.id is None and self.tags is None and self.instance_match_criteria is None:
            raise ValueError(
                "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']"
            )
        if self.id is not None and (
            self.tags is not None
            or self.owner_id is not None
            or self.instance_match_criteria is not None
        ):
            raise ValueError(
                f"'id' ({self.id!r}) is mutually exclusive, cannot be set along with other "
                "fields in a capacity reservation selector term"
            )
        return self

    def to_manifest(self) -> dict[str, Any]:
        term: dict[str, Any] = {}
        if self.id is not None:
            term["id"] = self.id
        if self.instance_match_criteria is not None:
            term["instanceMatchCriteria"] = self.instance_match_criteria
        if self.owner_id is not None:
            term["ownerID"] = self.owner_id
        if self.tags is not None:
            term["tags"] = dict(self.tags)
        return term


class PlacementGroup(SpecModel):
    """`placementGroupSelector`: the placement group every instance of the class goes to."""

    id: str | None = Field(
        default=None, pattern=r"^pg-[0-9a-z]+$", description="Placement group id. Default None."
    )
    name: str | None = Field(
        default=None, min_length=1, description="Placement group name. Default None."
    )

    @model_validator(mode="after")
    def _one(self) -> PlacementGroup:
        if (self.id is None) == (self.name is None):
            given = {k: v for k, v in (("id", self.id), ("name", self.name)) if v is not None}
            raise ValueError(
                f"give exactly one of `id` or `name` of the placement group (got {given})"
            )
        return self

    def to_manifest(self) -> dict[str, str]:
        return {"id": self.id} if self.id is not None else {"name": self.name or ""}


class NetworkInterface(SpecModel):
    """`networkInterfaces[]`: an ENI Karpenter puts in the launch template, e.g. the EFA-only
    interfaces of an EFA node."""

    network_card_index: int = Field(ge=0, description="Network card index. Required.")
    device_index: int = Field(ge=0, description="Device index on that card. Required.")
    interface_type: Literal["interface", "efa-only"] = Field(
        description="`interface` (an ENA interface, with an IP) or `efa-only`. Required."
    )

    def to_manifest(self) -> dict[str, Any]:
        return {
            "deviceIndex": self.device_index,
            "interfaceType": self.interface_type,
            "networkCardIndex": self.network_card_index,
        }


def _network_interfaces(interfaces: list[NetworkInterface]) -> list[NetworkInterface]:
    # The CRD's two rules on the list, in its words.
    if interfaces and not any(
        i.device_index == 0 and i.network_card_index == 0 and i.interface_type == "interface"
        for i in interfaces
    ):
        raise ValueError(
            "networkInterfaces must include a primary interface with interfaceType='interface' "
            "(network card 0, device 0)"
        )
    seen: set[tuple[int, int]] = set()
    efa_cards: set[int] = set()
    for i in interfaces:
        pair = (i.network_card_index, i.device_index)
        if pair in seen or (i.interface_type == "efa-only" and i.network_card_index in efa_cards):
            raise ValueError(
                "networkInterfaces must not have duplicate networkCardIndex and deviceIndex "
                f"pairs, and can have at most one efa device per network card (card {pair[0]}, "
                f"device {pair[1]})"
            )
        seen.add(pair)
        if i.interface_type == "efa-only":
            efa_cards.add(i.network_card_index)
    return interfaces


class InstanceMetadataOptions(SpecModel):
    """`metadataOptions`: the instances' metadata service (IMDS), written as set; a field left
    out takes the CRD's default (enabled, IPv6 disabled, hop limit 1, tokens required)."""

    http_endpoint: Literal["enabled", "disabled"] | None = Field(
        default=None, description="`httpEndpoint`. Default None (the CRD's: enabled)."
    )
    http_protocol_ipv6: Literal["enabled", "disabled"] | None = Field(
        default=None, description="`httpProtocolIPv6`. Default None (the CRD's: disabled)."
    )
    http_put_response_hop_limit: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="`httpPutResponseHopLimit`, 1..64 (2 lets containers off the host network "
        "reach IMDS). Default None (the CRD's: 1).",
    )
    http_tokens: Literal["required", "optional"] | None = Field(
        default=None,
        description="`httpTokens` (IMDSv2 when required). Default None (the CRD's: required).",
    )

    def to_manifest(self) -> dict[str, Any]:
        keys = {
            "http_endpoint": "httpEndpoint",
            "http_protocol_ipv6": "httpProtocolIPv6",
            "http_put_response_hop_limit": "httpPutResponseHopLimit",
            "http_tokens": "httpTokens",
        }
        return {out: getattr(self, f) for f, out in keys.items() if getattr(self, f) is not None}


class EbsVolume(SpecModel):
    """`blockDeviceMappings[].ebs`, written as the user sets it (nothing added)."""

    volume_size: Annotated[
        str | None,
        BeforeValidator(
            lambda v: f"{v}Gi" if isinstance(v, int) and not isinstance(v, bool) else v
        ),
    ] = Field(
        default=None,
        description="Size such as `100Gi` or `1Ti` (a bare number is GiB). Default None "
        "(the snapshot's size).",
    )
    volume_type: Literal["standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"] | None = Field(
        default=None, description="EBS volume type. Default None (EC2's: gp2)."
    )
    iops: int | None = Field(default=None, ge=0, description="IOPS (io1, io2, gp3). Default None.")
    throughput: int | None = Field(
        default=None, ge=0, description="Throughput in MiB/s (gp3). Default None."
    )
    encrypted: bool | None = Field(
        default=None, description="Encrypt the volume. Default None (the account's default)."
    )
    kms_key_id: str | None = Field(
        default=None, description="KMS key for encryption. Default None."
    )
    delete_on_termination: bool | None = Field(
        default=None, description="Delete with the instance. Default None (EC2's: true)."
    )
    snapshot_id: str | None = Field(default=None, description="Snapshot to restore. Default None.")
    volume_initialization_rate: int | None = Field(
        default=None,
        ge=100,
        le=300,
        description="MiB/s to hydrate a volume from `snapshot_id`, 100..300. Default None.",
    )

    @field_validator("volume_size")
    @classmethod
    def _size(cls, size: str | None) -> str | None:
        if size is not None and not _VOLUME_SIZE.fullmatch(size):
            raise ValueError(f"{size!r} is not a volume size such as '100Gi' or '1Ti' (max 64T)")
        return size

    @model_validator(mode="after")
    def _crd_rules(self) -> EbsVolume:
        if self.snapshot_id is None and self.volume_size is None:
            raise ValueError("snapshotID or volumeSize must be defined")
        if self.volume_initialization_rate is not None and not self.snapshot_id:
            raise ValueError("snapshotID must be set when volumeInitializationRate is set")
        return self

    def to_manifest(self) -> dict[str, Any]:
        keys = {
            "delete_on_termination": "deleteOnTermination",
            "encrypted": "encrypted",
            "iops": "iops",
            "kms_key_id": "kmsKeyID",
            "snapshot_id": "snapshotID",
            "throughput": "throughput",
            "volume_initialization_rate": "volumeInitializationRate",
            "volume_size": "volumeSize",
            "volume_type": "volumeType",
        }
        return {out: getattr(self, f) for f, out in keys.items() if getattr(self, f) is not None}


class BlockDeviceMapping(SpecModel):
    """One `blockDeviceMappings[]` entry of the EC2NodeClass."""

    device_name: str = Field(description="Device, e.g. `/dev/xvda`. Required.")
    ebs: EbsVolume = Field(description="The EBS volume. Required.")
    root_volume: bool | None = Field(
        default=None, description="This is the root volume (at most one). Default None."
    )

    def to_manifest(self) -> dict[str, Any]:
        mapping: dict[str, Any] = {"deviceName": self.device_name, "ebs": self.ebs.to_manifest()}
        if self.root_volume is not None:
            mapping["rootVolume"] = self.root_volume
        return mapping


class NodeClassArgs(SpecModel):
    """An EC2NodeClass created with the pool (named after it unless `name` says otherwise):
    how its nodes launch."""

    name: KubeObjectName | None = Field(
        default=None,
        description="Name of the EC2NodeClass, e.g. `default`, so that other pools can use it "
        "with `node_class_name`. Default None: the pool's name.",
    )

    role: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="Name of the IAM role the nodes assume (Karpenter makes the instance "
        "profile; immutable once created). Exactly one of `role` or `instance_profile`. "
        "Default None.",
    )
    instance_profile: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="Existing IAM instance profile name, instead of `role`. Default None.",
    )
    ami_alias: str = Field(
        default="al2023@latest",
        description="AMI alias `family@version` (families al2, al2023, bottlerocket, "
        "windows2019/2022/2025; Windows only `@latest`). Default `al2023@latest`.",
    )
    subnet_selector_tags: SelectorTerms = Field(
        description="Tags that select the nodes' subnets: one mapping (all tags must match) "
        "or a list of mappings (any may match); `*` matches any value. Required."
    )
    security_group_selector_tags: SelectorTerms = Field(
        description="Tags that select the nodes' security groups, like `subnet_selector_tags`. "
        "Required."
    )
    boot_volume_gb: int | None = Field(
        default=None,
        ge=BOOT_VOLUME_GB[0],
        le=BOOT_VOLUME_GB[1],
        description="Size of the encrypted gp3 volume that holds the OS and container images "
        "(Bottlerocket: its data volume), in GiB, 1..16384. Default None (Karpenter's "
        "default: 20 GiB, Windows 50 GiB).",
    )
    tags: InstanceTags = Field(
        default_factory=dict,
        description="AWS tags on the instances, volumes and launch templates; Karpenter's and "
        "EKS's own keys are reserved, and at most 44 (45 with `Name`) leave room for the 6 "
        "Karpenter adds within EC2's 50. Default {}.",
    )
    detailed_monitoring: bool | None = Field(
        default=None, description="EC2 detailed (1-minute) monitoring. Default None (off)."
    )
    ami_family: AmiFamily | None = Field(
        default=None,
        description="`amiFamily`: how Karpenter bootstraps the AMI (AL2, AL2023, Bottlerocket, "
        "Windows2019/2022/2025, or Custom: `user_data` does everything). Required with "
        "`ami_selector_terms`; with an alias it must match the alias's family (or be Custom). "
        "Default None.",
    )
    ami_selector_terms: list[AmiSelectorTerm] | None = Field(
        default=None,
        min_length=1,
        description="Select AMIs by id, name/owner, tags or SSM parameter instead of "
        "`ami_alias` (one or the other). Default None.",
    )
    user_data: str | None = Field(
        default=None,
        description="`userData`: merged by Karpenter with its bootstrap (AL2023: a MIME "
        "multi-part or NodeConfig document; Bottlerocket: TOML; Custom: the whole user data). "
        "Default None.",
    )
    block_device_mappings: list[BlockDeviceMapping] | None = Field(
        default=None,
        min_length=1,
        max_length=50,
        description="The volumes, written exactly as given (`encrypted` as you set it); instead "
        "of `boot_volume_gb`. Default None.",
    )
    capacity_reservation_selector_terms: list[CapacityReservationTerm] | None = Field(
        default=None,
        min_length=1,
        max_length=30,
        description="On-demand capacity reservations and capacity blocks the class may launch "
        "into (`capacityReservationSelectorTerms`, ORed): `{id}`, or `{tags, owner_id, "
        "instance_match_criteria}`. Pools using it need the `reserved` capacity type, and "
        "Karpenter the `ReservedCapacity` feature gate. Default None.",
    )
    placement_group: PlacementGroup | None = Field(
        default=None,
        description="`placementGroupSelector`: `{id}` or `{name}` of the placement group every "
        "instance joins (a cluster placement group for EFA training). Default None.",
    )
    network_interfaces: Annotated[
        list[NetworkInterface] | None,
        AfterValidator(lambda v: None if v is None else _network_interfaces(v)),
    ] = Field(
        default=None,
        max_length=150,
        description="`networkInterfaces`: the ENIs of each instance, e.g. the primary "
        "`interface` on card 0 plus one `efa-only` interface per network card for EFA. "
        "Default None (Karpenter's: one primary interface, EFA as the instance type offers).",
    )
    metadata_options: InstanceMetadataOptions | None = Field(
        default=None,
        description="`metadataOptions` of the instances' metadata service, each field as "
        "set. Default None (the CRD's defaults: IMDSv2 required, hop limit 1).",
    )
    annotations: Annotations = Field(
        default_factory=dict,
        description="`metadata.annotations` of the EC2NodeClass, e.g. "
        "`kubernetes.io/description`. Default {}.",
    )
    instance_store_policy: Literal["RAID0"] | None = Field(
        default=None,
        description="`RAID0` puts the local NVMe disks (e.g. of trn1, p4d) into one RAID0 "
        "array used for images and ephemeral storage. Default None (disks unused).",
    )

    @field_validator("role")
    @classmethod
    def _role(cls, role: Any) -> Any:
        if isinstance(role, str) and _ROLE_ARN.match(role):
            # Karpenter passes the role to IAM as a role name; an ARN fails at launch time.
            raise ValueError(
                f"{role!r} is a role ARN; give the role's name ({role.rsplit('/', 1)[-1]!r})"
            )
        if isinstance(role, str) and not _ROLE_NAME.fullmatch(role):
            raise ValueError(
                f"{role!r} is not an IAM role name (1 to 64 of letters, digits and '+=,.@_-')"
            )
        return role

    @field_validator("instance_profile")
    @classmethod
    def _instance_profile(cls, profile: Any) -> Any:
        if isinstance(profile, str) and not _PROFILE_NAME.fullmatch(profile):
            raise ValueError(
                f"{profile!r} is not an instance profile name (1 to 128 of letters, digits "
                "and '+=,.@_-')"
            )
        return profile

    @field_validator("ami_alias")
    @classmethod
    def _alias(cls, alias: str) -> str:
        found = _ALIAS.fullmatch(alias)
        if not found or len(alias) > _ALIAS_MAX:
            raise ValueError(
                f"{alias!r} is not an AMI alias 'family@version' of at most {_ALIAS_MAX} "
                "characters, e.g. 'al2023@latest' or 'bottlerocket@v1.30.0'"
            )
        if found["family"] not in _ALIAS_FAMILIES:
            raise ValueError(
                f"{alias!r}: family {found['family']!r} is not one of {', '.join(_ALIAS_FAMILIES)}"
            )
        if found["family"].startswith("windows") and found["version"] != "latest":
            raise ValueError(f"{alias!r}: Windows families only take version 'latest'")
        return alias

    @field_validator("block_device_mappings")
    @classmethod
    def _one_root(
        cls, mappings: list[BlockDeviceMapping] | None
    ) -> list[BlockDeviceMapping] | None:
        if mappings is not None and sum(1 for m in mappings if m.root_volume) > 1:
            raise ValueError("must have only one blockDeviceMappings with rootVolume")
        return mappings

    @model_validator(mode="after")
    def _ami_and_disks(self) -> NodeClassArgs:
        if self.ami_selector_terms is not None:
            if "ami_alias" in self.model_fields_set:
                raise ValueError("set `ami_alias` or `ami_selector_terms`, not both")
            if self.ami_family is None:
                raise ValueError(
                    "must specify `ami_family` if `ami_selector_terms` does not contain an alias"
                )
        elif self.ami_family not in (None, "Custom"):
            family = ami_family(self.ami_alias)
            if self.ami_family.lower() != family:
                raise ValueError(
                    f"`ami_family` {self.ami_family!r} must be {family!r}'s family or 'Custom' "
                    f"with the alias {self.ami_alias!r}"
                )
        if self.block_device_mappings is not None and self.boot_volume_gb is not None:
            raise ValueError("set `boot_volume_gb` or `block_device_mappings`, not both")
        return self

    @model_validator(mode="after")
    def _one_identity(self) -> NodeClassArgs:
        if self.role is None and self.instance_profile is None:
            raise ValueError("One of `role` or `instance_profile` is required.")
        if self.role is not None and self.instance_profile is not None:
            raise ValueError("Only one of `role` or `instance_profile` can be provided.")
        return self
