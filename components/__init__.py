"""nodepools: accelerator node pools on Kubernetes as Pulumi components."""
