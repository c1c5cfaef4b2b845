"""Args of the OKE Cluster Autoscaler add-on component: the cluster and its autoscaled pools."""

from __future__ import annotations

from typing import Annotated, Any

from nodepools.specs.clusters.identifiers import check_node_pool_id, check_oke_cluster_id
from nodepools.specs.clusters.targets import OkeAutoscalerAddon
from nodepools.specs.core.base import PathError, SpecModel, wired
from nodepools.specs.core.scaling import bounds_problem
from nodepools.specs.pools.names import PoolName
from pydantic import Field, field_validator, model_validator


class AutoscaledOkePool(SpecModel):
    """One node pool the autoscaler resizes, within its bounds."""

    name: PoolName = Field(description="The pool's name (orders the add-on's list). Required.")
    node_pool_id: Annotated[Any, wired(str)] = Field(
        description="The node pool's OCID, usually the pool component's `pool_id`. Required."
    )
    min_nodes: int = Field(ge=0, description="Fewest nodes. Required.")
    _node_pool_ocid = field_validator("node_pool_id")(check_node_pool_id)
    max_nodes: int = Field(ge=1, description="Most nodes; at least `min_nodes`. Required.")

    @model_validator(mode="after")
    def _min_not_above_max(self) -> AutoscaledOkePool:
        if problem := bounds_problem(self.min_nodes, self.max_nodes, "min_nodes", "max_nodes"):
            raise PathError("max_nodes", problem)
        return self


class OkeClusterAutoscalerArgs(SpecModel):
    """The add-on of one OKE cluster, fed by every autoscaled pool of that cluster."""

    cluster_id: Annotated[Any, wired(str)] = Field(
        description="Cluster OCID (or an Output). Required."
    )
    _cluster_ocid = field_validator("cluster_id")(check_oke_cluster_id)
    addon: OkeAutoscalerAddon = Field(
        default_factory=OkeAutoscalerAddon,
        description="Authentication and replicas; default `{auth_type: instance}`.",
    )
    pools: list[AutoscaledOkePool] = Field(
        min_length=1, description="The pools to resize; at least one, names unique. Required."
    )

    @field_validator("pools")
    @classmethod
    def _one_entry_per_pool(cls, pools: list[AutoscaledOkePool]) -> list[AutoscaledOkePool]:
        seen: set[str] = set()
        for pool in pools:
            if pool.name in seen:
                raise ValueError(f"pool {pool.name!r} is listed twice")
            seen.add(pool.name)
        # Sorted by name: the add-on's configuration does not depend on the order given.
        return sorted(pools, key=lambda pool: pool.name)


def nodes_value(pools: list[tuple[int, int, str]]) -> str:
    """The add-on's `nodes` argument: `min:max:<node pool OCID>` per pool, comma-separated."""
    return ",".join(f"{low}:{high}:{pool_id}" for low, high, pool_id in pools)


def addon_configuration(addon: OkeAutoscalerAddon, nodes: Any) -> list[dict[str, Any]]:
    """The add-on's key/value arguments (values are strings, as OCI takes them)."""
    return [
        {"key": "authType", "value": addon.auth_type},
        {"key": "nodes", "value": nodes},
        {"key": "numOfReplicas", "value": str(addon.num_of_replicas)},
    ]
