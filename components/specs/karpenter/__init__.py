"""Karpenter pools, in the file grammar of every specs domain:

- what the user writes: `args` (the `KarpenterNodePool` arguments), with `disruption`
  (consolidation and budgets), `values` (durations, requirement value lists, limits),
  `requirements` (free-form NodePool requirements), `annotations`, and the EC2NodeClass
  in `node_class` with its `selector_terms`, `block_devices`, `network` and
  `metadata_options`;
- defaults applied: `resolve` (`ResolvedKarpenterPool`), which derives what the pool
  launches in `accelerators` (the accelerator profile), from `instance_requirements` (what
  each requirement value stands for) and `accelerator_counts` (devices per instance);
- cross-field and cloud limits: `checks`, with `restrictions` (the keys the CRDs restrict,
  read from their CEL rules), `labels` (Karpenter's well-known label keys) and
  `instance_names` (the EC2 types, families and categories requirements name, checked
  against the instance catalog).

May import: `nodepools.specs.core`, `.catalog`, `.clusters`, `.pools`.
"""
