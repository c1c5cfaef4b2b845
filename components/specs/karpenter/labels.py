"""Well-known node labels Karpenter understands in requirements (karpenter.sh/docs
"Scheduling: Well-Known Labels"); every one passes the NodePool CRD's restricted-key rules.

Constants only, so that modules which name a label (AcceleratorStack's served pools) do
not import the Karpenter specs and the models they build.
"""

from nodepools.specs.core.labels import INSTANCE_TYPE_LABEL

__all__ = [
    "ARCH_LABEL",
    "CAPACITY_TYPE_LABEL",
    "GPU_COUNT_LABEL",
    "GPU_MANUFACTURER_LABEL",
    "GPU_NAME_LABEL",
    "INSTANCE_CATEGORY_LABEL",
    "INSTANCE_FAMILY_LABEL",
    "INSTANCE_TYPE_LABEL",
    "NEURON_COUNT_LABEL",
    "NEURON_NAME_LABEL",
    "NODEPOOL_LABEL",
]

NODEPOOL_LABEL = "karpenter.sh/nodepool"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
ARCH_LABEL = "kubernetes.io/arch"
INSTANCE_FAMILY_LABEL = "karpenter.k8s.aws/instance-family"
INSTANCE_CATEGORY_LABEL = "karpenter.k8s.aws/instance-category"
GPU_COUNT_LABEL = "karpenter.k8s.aws/instance-gpu-count"
GPU_MANUFACTURER_LABEL = "karpenter.k8s.aws/instance-gpu-manufacturer"
GPU_NAME_LABEL = "karpenter.k8s.aws/instance-gpu-name"
# Karpenter publishes Neuron devices (Inferentia, Trainium) as "accelerators".
NEURON_COUNT_LABEL = "karpenter.k8s.aws/instance-accelerator-count"
NEURON_NAME_LABEL = "karpenter.k8s.aws/instance-accelerator-name"
