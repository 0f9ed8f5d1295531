// The structured blocks of a stack's config, each handed to its own rules: the tenants (the field tables),
// the registry and the billing receiver, and what they need together (a kubeconfig). The config reader
// (read.ts) runs this with the namespace checks so that every problem comes in one list; the stack program
// runs it again on what it is given (its tests give settings directly) and gets the checked blocks.
import * as pulumi from "@pulumi/pulumi";
import { BillingReceiverArgs } from "../billing/component";
import { billingReceiverFromConfig, PortalConnection } from "../billing/from-config";
import { registryArgsFromConfig } from "../registry/from-config";
import { RegistryArgs } from "../registry/plan";
import { Problem } from "../tenants/model";
import { validateTenants } from "../tenants/validate";
import { setSecretHint } from "../rules/stack-config";

export interface StackBlocks {
  /** `backup-portal:tenants`, as parsed from the stack's YAML. */
  tenants: unknown;
  /** The business unit the top-level tenants are created under. */
  rootBusinessUnitId: number;
  /** `backup-portal:registry`, or undefined for no registry. */
  registry?: unknown;
  /** `backup-portal:billingReceiver`, or undefined for none. */
  billingReceiver?: unknown;
  /** The portal connection from stack config, for what runs in the cluster (the billing receiver). */
  connection?: PortalConnection;
  /** The cluster's kubeconfig (a secret), for the registry and the billing receiver. */
  kubeconfig?: pulumi.Output<string>;
  /** A secret config key's value (`backup-portal:<key>`); throws when it is absent or stored in plain text. */
  secret(key: string): pulumi.Output<string>;
  /** Whether `backup-portal:<key>` is set and stored as a secret. */
  hasSecret(key: string): boolean;
}

export interface CheckedBlocks {
  problems: Problem[];
  /** The registry's arguments when it is enabled and has no problem. */
  registry?: RegistryArgs;
  /** The receiver's arguments when it is enabled and has no problem. */
  receiver?: BillingReceiverArgs;
}

/** `registry.users[0]: message` → a Problem (the registry's rules return text). */
function toProblem(text: string): Problem {
  const i = text.indexOf(": ");
  return i < 0 ? { path: "registry", message: text } : { path: text.slice(0, i), message: text.slice(i + 2) };
}

export function checkStackBlocks(s: StackBlocks): CheckedBlocks {
  const problems = validateTenants(s.tenants, { hasSecret: s.hasSecret });
  const registry = registryArgsFromConfig(s.registry, "registry", s.secret);
  problems.push(...registry.problems.map(toProblem));
  const receiver = billingReceiverFromConfig(s.billingReceiver, s.rootBusinessUnitId, s.connection, s);
  problems.push(...receiver.problems);
  if ((registry.enabled || receiver.enabled) && !s.kubeconfig) {
    problems.push({
      path: "kubeconfig",
      message: `the registry or billing receiver is enabled but no kubeconfig is set; set it with ${setSecretHint("kubeconfig")}, e.g. \`< ~/.kube/config\``,
    });
  }
  return { problems, registry: registry.enabled ? registry.args : undefined, receiver: receiver.enabled ? receiver.args : undefined };
}
