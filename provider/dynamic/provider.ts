// Builds the provider object the engine serializes into `__provider`: each
// method `require`s the resource's lifecycle module in the host and delegates.
// Only the specifier and export name are captured, so the serialized text is
// small and holds no credential, token or absolute path.
import type * as pulumi from "@pulumi/pulumi";

export interface Lifecycle {
  check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult>;
  diff(id: string, olds: any, news: any): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: any): Promise<pulumi.dynamic.CreateResult>;
  read(id: string, props: any): Promise<pulumi.dynamic.ReadResult>;
  update(id: string, olds: any, news: any): Promise<pulumi.dynamic.UpdateResult>;
  delete(id: string, props: any): Promise<void>;
}

export function lifecycleProvider(specifier: string, exportName: string): pulumi.dynamic.ResourceProvider {
  // `require` inside the methods runs in the host, resolved from the project
  // directory (the closure serializer never captures `require` itself).
  return {
    async configure(req: pulumi.dynamic.ConfigureRequest) {
      require(specifier).configurePortal(req.config);
    },
    check: (olds: any, news: any) => require(specifier)[exportName].check(olds, news),
    diff: (id: string, olds: any, news: any) => require(specifier)[exportName].diff(id, olds, news),
    create: (inputs: any) => require(specifier)[exportName].create(inputs),
    read: (id: string, props: any) => require(specifier)[exportName].read(id, props),
    update: (id: string, olds: any, news: any) => require(specifier)[exportName].update(id, olds, news),
    delete: (id: string, props: any) => require(specifier)[exportName].delete(id, props),
  };
}
