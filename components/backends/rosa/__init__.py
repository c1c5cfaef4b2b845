"""ROSA Classic machine pools through the OpenShift Cluster Manager API: a Pulumi dynamic
provider, its HTTP client, the request bodies and the diff that decides update or replace.

`OcmMachinePoolProvider` is named here as well because the engine unpickles a dynamic
provider by module path: stacks whose state was written while the provider lived in
`nodepools.backends.rosa` (before 0.2) find it there.

May import: `nodepools.specs`, `nodepools.backends.dynamic_support` and `.http_retry`.
"""

from nodepools.backends.rosa.machine_pool import OcmMachinePoolProvider

__all__ = ["OcmMachinePoolProvider"]
