// The stack program: stack config → validated tenants → resources.
// The structure is validated before the first resource is declared, every problem at once with its path and the
// fix. The names against the portal's reference data are the NameCheck's (resources/name-check.ts), registered
// first: its Check reads the portal only when the names changed since the last up, and every tenant's business unit
// depends on it, so nothing is registered under a wrong name and the program itself sends no request.
import * as pulumi from "@pulumi/pulumi";
import { BillingReceiver } from "../billing/component";
// @pulumi/kubernetes is an optional peer: loaded only when the stack enables the registry or the billing receiver.
import { k8s } from "../kubernetes";
import { Registry } from "../registry/index";
import { NameCheck } from "../resources/name-check";
import { checkStackBlocks, StackBlocks } from "../stack-config/blocks";
import { declareTenants, Declared } from "../tenants/declare";
import { ConfigError, TenantsConfig } from "../tenants/model";
import { withSourcePositionsOnly } from "./stack-traces";

/** What the program declares from: the config reader's StackConfig (../stack-config/read.ts), or a test's. */
export interface StackSettings extends StackBlocks {
  protectBusinessUnits: boolean;
  deletionComment: string;
  /** The stack file the name checks' problems name; `Pulumi.<stack>.yaml` by default. */
  stackFile?: string;
  /**
   * @deprecated Not read: the names are checked by the NameCheck's Check in the provider host, through its own
   * connection. Kept only so that callers written against the earlier program still compile.
   */
  portal?: unknown;
}

/** The NameCheck's name: its problems print as `... NameCheck resource 'tenants' has a problem: <line>`. */
export const NAME_CHECK = "tenants";

/** The stack's outputs: the ids the portal gave each tenant's objects, and the Kubernetes parts' addresses. */
export interface StackOutputs {
  businessUnitIds: pulumi.Output<Record<string, number>>;
  consumerIds: pulumi.Output<Record<string, number>>;
  nodeNames: pulumi.Output<Record<string, string | undefined>>;
  registry?: { namespace: pulumi.Output<string>; url: pulumi.Output<string>; accessCommands: pulumi.Output<string[]> };
  billingReceiver?: { notifyUrl: pulumi.Output<string> };
}

export async function deployStack(s: StackSettings): Promise<StackOutputs> {
  const tenants = s.tenants ?? {};
  // The same block rules the config reader ran: a caller that did not read the config gets them too.
  const checked = checkStackBlocks({ ...s, tenants });
  if (checked.problems.length) throw new ConfigError(checked.problems);

  // Each resource's stack trace in the state is its source position only (program/stack-traces.ts).
  const declared = withSourcePositionsOnly(() => declareAll(s, tenants as TenantsConfig));
  const outputs: StackOutputs = summarize(declared);
  if (checked.registry || checked.receiver) {
    // One Kubernetes provider for the stack's cluster, from the kubeconfig setting.
    const cluster = new k8s.Provider("cluster", { kubeconfig: s.kubeconfig! });
    if (checked.registry) {
      const reg = new Registry("registry", { ...checked.registry, kubeconfig: s.kubeconfig }, { provider: cluster });
      outputs.registry = { namespace: reg.namespace, url: reg.url, accessCommands: reg.accessCommands };
    }
    if (checked.receiver) {
      const r = new BillingReceiver("billing-receiver", checked.receiver, { provider: cluster });
      outputs.billingReceiver = { notifyUrl: r.notifyUrl };
    }
  }
  return outputs;
}

/** The name check, then every tenant's resources, each depending on it. */
function declareAll(s: StackSettings, tenants: TenantsConfig): Declared {
  // With no tenant there is nothing to check, and nothing that needs the portal.
  const names = Object.keys(tenants).length
    ? new NameCheck(NAME_CHECK, {
        file: s.stackFile ?? `Pulumi.${pulumi.getStack()}.yaml`,
        rootBusinessUnitId: s.rootBusinessUnitId,
        tenants,
      })
    : undefined;
  return declareTenants(tenants, {
    rootBusinessUnitId: s.rootBusinessUnitId,
    protectBusinessUnits: s.protectBusinessUnits,
    deletionComment: s.deletionComment,
    secret: s.secret,
    tenantsDependOn: names ? [names] : [],
  });
}

function summarize(d: Declared): StackOutputs {
  const collect = <T>(entries: Record<string, { [k: string]: any }>, key: string) =>
    pulumi.all(Object.fromEntries(Object.entries(entries).map(([name, r]) => [name, r[key]]))) as pulumi.Output<Record<string, T>>;
  return {
    businessUnitIds: collect<number>(d.businessUnits, "businessUnitId"),
    consumerIds: collect<number>(d.consumers, "consumerId"),
    nodeNames: collect<string | undefined>(d.nodes, "activatedName"),
  };
}
