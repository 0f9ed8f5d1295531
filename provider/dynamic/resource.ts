// The base of the four dynamic resource classes. It registers what the SDK's
// `pulumi.dynamic.Resource` registers (type `pulumi-nodejs:dynamic/<module>:<type>`,
// the props with `__provider`), but `__provider` is the one-line text of
// provider.ts instead of the closure serializer's 2.6 KB (the SDK's class
// serializes whatever provider object it is given and adds nothing else).
// The SDK's resource module, not its index: the lifecycle modules the plugin loads define the classes too, and
// the index loads all of the SDK (automation, the language host's TypeScript): seconds at every plugin start.
import type { Inputs } from "@pulumi/pulumi/output";
import { CustomResource, type CustomResourceOptions } from "@pulumi/pulumi/resource";

export class DynamicResource extends CustomResource {
  /** Same arguments as `pulumi.dynamic.Resource`, with the provider as its `__provider` text (serializedProvider). */
  constructor(provider: string, name: string, props: Inputs, opts: CustomResourceOptions | undefined, module: string, type: string) {
    super(`pulumi-nodejs:dynamic/${module}:${type}`, name, { ...props, __provider: provider }, opts);
  }
}
