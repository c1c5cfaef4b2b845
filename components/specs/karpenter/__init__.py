"""Karpenter pools: the `KarpenterNodePool` arguments, its EC2NodeClass, the NodePool
requirements and Karpenter's restricted labels, which accelerators a pool's instance
choice can launch, and `ResolvedKarpenterPool`.

May import: `nodepools.specs.core`, `.catalog`, `.clusters`, `.pools`.
"""
