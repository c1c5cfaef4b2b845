"""`nodepools import karpenter|kueue|eks FILE...`: existing Karpenter NodePools and
EC2NodeClasses, Kueue objects or EKS managed node groups (`aws eks describe-nodegroup`'s
JSON) turned into the stack configuration (`Pulumi.<stack>.yaml`) or the Python program that
makes the same objects; the result is planned offline and held against the input, and every
difference is listed (object and field path, upstream value, ours, why).

Modules: `documents` (reading the files: one clear line per bad file), `model` (what an
importer returns), one module per source (`karpenter`, `kueue` with `kueue_quotas`, `eks`), `differences` (the
object comparison), `roundtrip` (planning the result offline), `rendering` (stack YAML and
Python program), `command` (the command line).

May import: fleet, offline, planning, specs, block_yaml, json_values. Imported only by the
command line (`nodepools.cli`). Read only: nothing touches a network or a cloud.
"""
