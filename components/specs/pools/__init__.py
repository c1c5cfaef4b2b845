"""Managed node pools: the arguments of `MachinePool`, `GpuSpotPool` and `SharedNodePool`.

Each concept has its module: `args` (what the user writes) with the settings it shares
(`settings`, `node_settings`, `network`, `capacity_reservation`, `kubelet_config`,
`names`) and the instance-type mix (`instance_mix`); `checks` (the rules between fields
and the cloud's limits, run by `checked_args`); `resolve` (`ResolvedPool`, every default
applied) and `resolved_checks` (the cloud's limits on it); `shared` (SharedNodePool's args
and the description recipes match); the NodeRole and OKE cluster autoscaler args.

May import: `nodepools.specs.core`, `.catalog`, `.clusters`.
"""
