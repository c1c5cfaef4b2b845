"""Core value types every domain builds on: the spec base model and its error collection
(`SpecModel`, `PathError`, `SpecError`), labels, taints, scaling and spot, Kubernetes
quantities and names, AWS tags, secret inputs, field documentation, the scheduler's rules
for matching pods to nodes, and the checks re-run on Output fields once they are known.

May import: `nodepools.json_values` and `nodepools.validation.quantity`; nothing from the
other `nodepools.specs` domains, except that `base` loads the modules that register
discriminated-union tags (by name) before it turns the first validation error into issues.
"""
