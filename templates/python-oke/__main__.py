"""GPU node pools on an existing OKE cluster: a preemptible GPU pool that scales from zero,
tainted so only pods that ask for a GPU land there, and the cluster's Cluster Autoscaler
add-on, which scales it.

`pulumi preview` shows what would be created; `nodepools plan --stack dev` plans it offline,
with no OCI account. The pool exports the scheduling info a workload needs.
"""

import pulumi
from nodepools import GpuSpotPool, OkeClusterAutoscaler
from nodepools.template_options import template_options

# This template's options (Pulumi.yaml's `template.config`), with their defaults.
options = template_options(
    {
        "clusterId": "ocid1.cluster.oc1.phx.example",
        "compartmentId": "ocid1.compartment.oc1..example",
        "imageId": "ocid1.image.oc1.phx.example",
        "availabilityDomain": "Uocm:PHX-AD-1",
        "subnetId": "ocid1.subnet.oc1.phx.example",
        "gpuShape": "VM.GPU.A10.1",
        "maxGpuNodes": "4",
    }
)

cluster = {
    "kind": "oke",
    "cluster_id": options["clusterId"],
    "compartment_id": options["compartmentId"],
    "image_id": options["imageId"],
    "placements": [
        {
            "availability_domain": options["availabilityDomain"],
            "subnet_id": options["subnetId"],
        }
    ],
}

gpu = GpuSpotPool(
    "gpu",
    {
        "cluster": cluster,
        "instance_type": options["gpuShape"],
        "autoscaling": {"min_replicas": 0, "max_replicas": int(options["maxGpuNodes"])},
    },
)
OkeClusterAutoscaler.for_pools("autoscaler", [gpu])

pulumi.export("gpu_scheduling_info", gpu.scheduling_info)
