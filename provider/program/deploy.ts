// The stack program: stack config → validated tenants → resources.
// Everything is validated (structure, then names against the portal's
// reference data, reads only) before the first resource is declared, and every
// problem is reported at once with its path and the fix.
import * as pulumi from "@pulumi/pulumi";
import { BillingReceiver } from "../billing/component";
import { References } from "../dynamic/references";
// @pulumi/kubernetes is an optional peer: loaded only when the stack enables the registry or the billing receiver.
import { k8s } from "../kubernetes";
import { PortalClient } from "../portal/client";
import { Registry } from "../registry/index";
import { checkStackBlocks, StackBlocks } from "../stack-config/blocks";
import { declareTenants, Declared } from "../tenants/declare";
import { ConfigError, TenantsConfig } from "../tenants/model";
import { validateNames } from "../tenants/names";

/** What the program declares from: the config reader's StackConfig (../stack-config/read.ts), or a test's. */
export interface StackSettings extends StackBlocks {
  protectBusinessUnits: boolean;
  deletionComment: string;
  /** A client for the read-only name checks; without one they are left to each resource's check. */
  portal?: PortalClient;
}

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

  if (s.portal) {
    const nameProblems = await validateNames(tenants as TenantsConfig, new References(s.portal), s.rootBusinessUnitId);
    if (nameProblems.length) throw new ConfigError(nameProblems);
  }

  const declared = declareTenants(tenants as TenantsConfig, {
    rootBusinessUnitId: s.rootBusinessUnitId,
    protectBusinessUnits: s.protectBusinessUnits,
    deletionComment: s.deletionComment,
    secret: s.secret,
  });
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

function summarize(d: Declared): StackOutputs {
  const collect = <T>(entries: Record<string, { [k: string]: any }>, key: string) =>
    pulumi.all(Object.fromEntries(Object.entries(entries).map(([name, r]) => [name, r[key]]))) as pulumi.Output<Record<string, T>>;
  return {
    businessUnitIds: collect<number>(d.businessUnits, "businessUnitId"),
    consumerIds: collect<number>(d.consumers, "consumerId"),
    nodeNames: collect<string | undefined>(d.nodes, "activatedName"),
  };
}
