"""EKS managed node groups: the node group, its launch template, node IAM role, EFA
network and placement groups, custom-AMI user data, and the Auto Scaling group tags the
cluster autoscaler reads for scale from zero. Imports `pulumi_aws` (as does `karpenter`).

May import: `nodepools.specs`, `nodepools.backends` (the registry), `nodepools.json_values`.
"""
