"""Where a pool lives: the cluster targets (`EksCluster`, `OkeCluster`, `RosaCluster`,
discriminated by `kind`) and what each cloud accepts (`ClusterCapabilities`).

May import: `nodepools.specs.core`, `nodepools.specs.catalog`.
"""
