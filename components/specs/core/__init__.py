"""Core value types every domain builds on: the spec base model and its error collection
(`SpecModel`, `PathError`, `SpecError`), labels, taints, scaling and spot, Kubernetes
quantities and names, AWS tags, secret inputs, field documentation, and the checks
re-run on Output fields once they are known.

May import: nothing from the other `nodepools.specs` domains; from the library only
`nodepools.json_values` and the Kubernetes-syntax helpers of `nodepools.validation`.
"""
