"""The pool components: what a cluster's nodes are (instance type, scaling, labels, taints)."""
