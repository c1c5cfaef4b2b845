"""Managed node pools: the arguments of `MachinePool`, `GpuSpotPool` and `SharedNodePool`,
their settings (boot volume, node config, network, capacity reservations, kubelet
config, node roles), the OKE cluster autoscaler's arguments, pool names, and
`ResolvedPool`, a pool with every default applied.

May import: `nodepools.specs.core`, `.catalog`, `.clusters`.
"""
