// The stack program: stack config → validated tenants → resources.
// Everything is validated (structure, then names against the portal's
// reference data, reads only) before the first resource is declared, and every
// problem is reported at once with its path and the fix.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { References } from "../provider/dynamic/references";
import { PortalClient } from "../provider/portal/client";
import { registryArgsFromConfig } from "../provider/registry/from-config";
import { Registry } from "../provider/registry/index";
import { BillingReceiver } from "../provider/billing/component";
import { billingReceiverFromConfig, PortalConnection } from "./billing-receiver";
import { declareTenants, Declared } from "../provider/tenants/declare";
import { ConfigError, Problem, TenantsConfig } from "../provider/tenants/model";
import { validateNames } from "../provider/tenants/names";
import { validateTenants } from "../provider/tenants/validate";

export interface StackSettings {
  /** `backup-portal:tenants`, as parsed from the stack's YAML. */
  tenants: unknown;
  /** The business unit the top-level tenants are created under. */
  rootBusinessUnitId: number;
  protectBusinessUnits: boolean;
  deletionComment: string;
  /** `backup-portal:registry`, or undefined for no registry. */
  registry?: unknown;
  /** `backup-portal:billingReceiver`, or undefined for none. */
  billingReceiver?: unknown;
  /** The portal connection from stack config, for what runs in the cluster (the billing receiver). */
  connection?: PortalConnection;
  /** The cluster's kubeconfig (a secret), for the registry and the billing receiver. */
  kubeconfig?: pulumi.Output<string>;
  secret(key: string): pulumi.Output<string>;
  hasSecret(key: string): boolean;
  /** A client for the read-only name checks; without one they are left to each resource's check. */
  portal?: PortalClient;
}

export interface StackOutputs {
  businessUnitIds: pulumi.Output<Record<string, number>>;
  consumerIds: pulumi.Output<Record<string, number>>;
  nodeNames: pulumi.Output<Record<string, string | undefined>>;
  registry?: { namespace: pulumi.Output<string>; url: pulumi.Output<string>; accessCommands: pulumi.Output<string[]> };
  billingReceiver?: { notifyUrl: pulumi.Output<string> };
}

function toProblem(text: string): Problem {
  const i = text.indexOf(": ");
  return i < 0 ? { path: "registry", message: text } : { path: text.slice(0, i), message: text.slice(i + 2) };
}

export async function deployStack(s: StackSettings): Promise<StackOutputs> {
  const tenants = s.tenants ?? {};
  const problems = validateTenants(tenants, { hasSecret: s.hasSecret });
  if (!Number.isInteger(s.rootBusinessUnitId) || s.rootBusinessUnitId < 1) {
    problems.push({
      path: "rootBusinessUnitId",
      message: "must be the id of the business unit tenants are created under; set `pulumi config set rootBusinessUnitId <id>`",
    });
  }
  const registry = registryArgsFromConfig(s.registry, "registry", s.secret);
  problems.push(...registry.problems.map(toProblem));
  const receiver = billingReceiverFromConfig(s.billingReceiver, s.rootBusinessUnitId, s.connection, s);
  problems.push(...receiver.problems);
  if ((registry.enabled || receiver.enabled) && !s.kubeconfig) {
    problems.push({
      path: "kubeconfig",
      message:
        'the registry or billing receiver is enabled but no kubeconfig is set; `pulumi config set --secret kubeconfig "$(cat ~/.kube/config)"`',
    });
  }
  if (problems.length) throw new ConfigError(problems);

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
  if (registry.enabled || receiver.enabled) {
    // One Kubernetes provider for the stack's cluster, from the kubeconfig setting.
    const cluster = new k8s.Provider("cluster", { kubeconfig: s.kubeconfig! });
    if (registry.enabled) {
      const reg = new Registry("registry", registry.args!, { provider: cluster });
      outputs.registry = { namespace: reg.namespace, url: reg.url, accessCommands: reg.accessCommands };
    }
    if (receiver.enabled) {
      const r = new BillingReceiver("billing-receiver", receiver.args!, { provider: cluster });
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
