// Beyond one stack: the tenants of a reseller split over many stacks of the same
// project, one per group, run with Pulumi's Automation API (or the Pulumi
// Kubernetes Operator). See docs/gitops.md, "The fleet".
export * from "./group";
export * from "./config";
export * from "./run";
export * from "./operator";
