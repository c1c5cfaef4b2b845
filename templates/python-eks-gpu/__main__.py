"""GPU node pools on an existing EKS cluster: a spot GPU pool that scales from zero, tainted
so only pods that ask for a GPU land there, and a small on-demand pool for everything else.

`pulumi preview` shows what would be created; `nodepools plan --stack dev` plans it offline,
with no AWS account. Each pool exports the scheduling info a workload needs.
"""

import pulumi
from nodepools import GpuSpotPool, MachinePool
from nodepools.template_options import template_options

# This template's options (Pulumi.yaml's `template.config`), with their defaults.
options = template_options(
    {
        "clusterName": "ml-platform",
        "subnetIds": "subnet-0123456789abcdef0,subnet-0fedcba9876543210",
        "gpuInstanceType": "g5.xlarge",
        "maxGpuNodes": "4",
    }
)

cluster = {
    "kind": "eks",
    "cluster_name": options["clusterName"],
    "subnet_ids": [s.strip() for s in options["subnetIds"].split(",") if s.strip()],
}

gpu = GpuSpotPool(
    "gpu",
    {
        "cluster": cluster,
        "instance_type": options["gpuInstanceType"],
        "autoscaling": {"min_replicas": 0, "max_replicas": int(options["maxGpuNodes"])},
    },
)
system = MachinePool("system", {"cluster": cluster, "instance_type": "m5.large", "replicas": 2})

pulumi.export("gpu_scheduling_info", gpu.scheduling_info)
pulumi.export("node_role_arn", gpu.node_role_arn)
