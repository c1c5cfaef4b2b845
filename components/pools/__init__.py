"""The pool components (`MachinePool`, `GpuSpotPool`, `SharedNodePool`, `KarpenterNodePool`,
`NodeRole`, `OkeClusterAutoscaler`): each checks its args, has its cloud's backend build
the resources, and publishes the pool's outputs and scheduling info.

May import: `nodepools.specs`, `nodepools.backends`, `nodepools.validation`, and the
helpers beside them (`scheduling`, `outputs`, `preflight`, `documentation`); never another
component package, the fleet or planning.
"""
