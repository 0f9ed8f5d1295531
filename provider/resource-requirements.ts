// A container's CPU and memory as Kubernetes takes them (core/v1 ResourceRequirements), for the arguments of the
// Kubernetes components. Declared here, not taken from @pulumi/kubernetes: that package is an optional peer, and a
// program without it compiles with the package's declarations checked (no skipLibCheck) only while no exported
// declaration names it. Assignable to @pulumi/kubernetes' own type, which the components pass it on as.
import type * as pulumi from "@pulumi/pulumi";

/** Resource requests and limits by name, e.g. `{ requests: { cpu: "50m", memory: "128Mi" }, limits: { memory: "512Mi" } }`. */
export interface ResourceRequirements {
  limits?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  requests?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}
