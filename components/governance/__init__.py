"""The governance components and their renderers: `PoolQuotas` (`pool_quotas`, rendered as
Kueue objects by `kueue`), `KueueQueues` (`kueue_queues`, Kueue objects as written) and
`PoolPlatforms` (`pool_platforms`: OSMO documents by `osmo_documents`, applied to OSMO, or
Kubernetes objects by `platform_objects`, `platform_templates` and `platform_policies`,
OSMO's form going through `osmo_kubernetes`, with `admission_cel` compile-checking the
CEL the policies carry). `manifests` checks rendered objects with the offline validator;
`register` registers them through pulumi_kubernetes's classes (`nodepools.backends.kubernetes`).

The renderers are pure (no `pulumi` import); the components and `register` import it.
May import: `pulumi`, `nodepools.specs` (`.core`, `.governance`), `nodepools.validation`,
`nodepools.backends.kubernetes` and `nodepools.backends.governance` (OSMO's
configs), and the top-level helpers `nodepools.documentation`, `.json_values`,
`.outputs`, `.preflight` and `.scheduling`. Imported by `nodepools.fleet` and the
package's public API.
"""
