// The nodepools components from TypeScript, through the SDK generated from our provider's schema
// (`pulumi package add ../../provider`, or as tests/engine/test_typescript_sdk.py does it).
import * as nodepools from "@pulumi/nodepools";

// Selector terms: a list of tag mappings, any of which may match.
const discovery = [{ "karpenter.sh/discovery": "ml" }];

const gpu = new nodepools.KarpenterNodePool("gpu", {
    nodeClass: {
        role: "KarpenterNodeRole-ml",
        subnetSelectorTags: discovery,
        securityGroupSelectorTags: discovery,
    },
    instanceTypes: ["g6e.12xlarge"],
    limits: { cpu: "192", memory: "1536Gi", "nvidia.com/gpu": 16 },
});

const l40s = {
    name: "l40s",
    nodeLabels: { "nodepools.dev/pool": "l40s" },
    taints: [{ key: "nodepools.dev/pool", value: "l40s", effect: "NoSchedule" }],
    gpus: 16,
};

new nodepools.PoolQuotas("quotas", {
    pools: [{ ...l40s, cpu: 192, memory: "1536Gi" }],
    departments: [
        {
            name: "research",
            projects: [{ name: "training", quotas: { l40s: { gpu: 8, cpu: 96, memory: "768Gi" } } }],
        },
    ],
});

export const gpuSchedulingInfo = gpu.schedulingInfo;
