"""Where a pool lives: the cluster targets (`targets`: `EksCluster`, `OkeCluster`, and
`RosaCluster` from `rosa`, discriminated by `kind`) and what each cloud accepts
(`capabilities`: one `ClusterCapabilities` entry per cloud).

May import: `nodepools.specs.core`, `nodepools.specs.catalog` (never `.pools`: pools read
the clusters, not the other way round).
"""
