"""`nodepools doctor`: the offline plan of a stack held against the live cluster.

Why is my GPU pod pending? The plan says what each pool's nodes should look like (labels,
taints, node counts, the accelerators they advertise), which device DaemonSets must run on
them and what a workload's scheduling info asks for; `doctor` reads the cluster (read only)
and reports where it differs, pool by pool, then explains every pending accelerator pod.

Modules: `expected` (what the plan promises), `live` (the read-only snapshot of the
cluster), `pool_checks`, `device_checks`, `pending` (the findings), `report` (text and
JSON), `command` (the command line).

May import: planning, specs, json_values (and the maintained `kubernetes` client, in `live`
only). Imported only by the command line (`nodepools.cli`).
"""
