// The base of the four dynamic resource classes. It registers what the SDK's
// `pulumi.dynamic.Resource` registers (type `pulumi-nodejs:dynamic/<module>:<type>`,
// the props with `__provider`), but `__provider` is the one-line text of
// provider.ts instead of the closure serializer's 2.6 KB (the SDK's class
// serializes whatever provider object it is given and adds nothing else).
import * as pulumi from "@pulumi/pulumi";

export class DynamicResource extends pulumi.CustomResource {
  /** Same arguments as `pulumi.dynamic.Resource`, with the provider as its `__provider` text (serializedProvider). */
  constructor(
    provider: string,
    name: string,
    props: pulumi.Inputs,
    opts: pulumi.CustomResourceOptions | undefined,
    module: string,
    type: string,
  ) {
    super(`pulumi-nodejs:dynamic/${module}:${type}`, name, { ...props, __provider: provider }, opts);
  }
}
