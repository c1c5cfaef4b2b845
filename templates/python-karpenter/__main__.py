"""A Karpenter GPU NodePool and its EC2NodeClass: Karpenter launches GPU nodes (spot first)
when pods that ask for GPUs wait, up to a GPU limit, and removes them when idle.

Everything here is a Kubernetes object: the program needs the core `nodepools` only (no AWS
SDK), and `pulumi up` needs only a cluster that runs Karpenter (KUBECONFIG). `nodepools plan
--stack dev` plans it offline and checks the objects against Karpenter's CRD schemas; its
policy pack reminds you that spot nodes are drained on interruption only once Karpenter reads
an interruption queue.
"""

import pulumi
from nodepools import KarpenterNodePool
from nodepools.template_options import template_options

# This template's options (Pulumi.yaml's `template.config`), with their defaults.
options = template_options(
    {
        "clusterName": "ml-platform",
        "nodeRole": "KarpenterNodeRole-ml-platform",
        "instanceTypes": "g6e.12xlarge,g5.12xlarge",
        "gpuLimit": "16",
    }
)

discovery = [{"karpenter.sh/discovery": options["clusterName"]}]
gpu = KarpenterNodePool(
    "gpu",
    {
        "node_class": {
            "role": options["nodeRole"],
            "subnet_selector_tags": discovery,
            "security_group_selector_tags": discovery,
        },
        "instance_types": [t.strip() for t in options["instanceTypes"].split(",") if t.strip()],
        "capacity_types": ["spot", "on-demand"],
        # Only pods that tolerate interruption prefer spot nodes.
        "taints": ["spot=true:PreferNoSchedule"],
        "limits": {"nvidia.com/gpu": int(options["gpuLimit"])},
    },
)

pulumi.export("gpu_scheduling_info", gpu.scheduling_info)
