// `backupportal:index:Tenants`: the stack's `backup-portal:tenants` block (as `backup-portal export` writes it) as
// the plugin's own resources, for programs that cannot loop over a map: a YAML program declares the whole block
// with one resource. It is a component the engine asks the plugin to construct (Construct, construct.ts): the
// stack's config comes with the request, and is read by the TypeScript program's own reader
// (stack-config/read.ts readStackConfig), checked against the portal's names (tenants/names.ts) and declared by
// the same code (tenants/declare.ts), with the plugin's types instead of the dynamic ones. Loaded only when a
// program declares the component: it needs the SDK's runtime, which the plugin's start-up does without.
import * as pulumi from "@pulumi/pulumi";
import { portal } from "../dynamic/connection";
import { References } from "../dynamic/references";
import type { BusinessUnit } from "../resources/business-unit";
import type { Consumer } from "../resources/consumer";
import type { Node } from "../resources/node";
import type { NodeProxy } from "../resources/node-proxy";
import { inputDefaults, outputPlaceholders, ResourceSpec, secretKeys } from "../rules/resources";
import { BUSINESS_UNIT, CONSUMER, NODE, NODE_PROXY } from "../rules/resources";
import { qualified, setSecretHint } from "../rules/stack-config";
import { checkStackBlocks } from "../stack-config/blocks";
import { configProblemsText, readStackConfig, StackConfig } from "../stack-config/read";
import { declareTenants, Declared, TenantClasses } from "../tenants/declare";
import { Problem } from "../tenants/model";
import { validateNames } from "../tenants/names";
import { TENANTS_OUTPUTS, TENANTS_TYPE } from "./components";
import { PACKAGE } from "./resources";

/**
 * A class with the constructor of a dynamic resource class (`new BusinessUnit(name, args, opts)`) that registers
 * the plugin's type: the same inputs and defaults, outputs, secrets and deleteBeforeReplace (the plugin's Check
 * derives the create marker from the URN, as the dynamic classes do from the name).
 */
function pluginClass(spec: ResourceSpec) {
  return class extends pulumi.CustomResource {
    constructor(name: string, args: object, opts?: pulumi.CustomResourceOptions) {
      super(
        `${PACKAGE}:index:${spec.name}`,
        name,
        { ...inputDefaults(spec), ...args, ...outputPlaceholders(spec) },
        {
          ...(spec.deleteBeforeReplace ? { deleteBeforeReplace: true } : {}),
          ...opts,
          additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secretKeys(spec)],
        },
      );
    }
  };
}

/** The plugin's types behind declareTenants' classes: the instances have the dynamic classes' outputs, by the same tables. */
export const PLUGIN_CLASSES: TenantClasses = {
  BusinessUnit: pluginClass(BUSINESS_UNIT) as unknown as typeof BusinessUnit,
  Consumer: pluginClass(CONSUMER) as unknown as typeof Consumer,
  Node: pluginClass(NODE) as unknown as typeof Node,
  NodeProxy: pluginClass(NODE_PROXY) as unknown as typeof NodeProxy,
};

/** The stack config's keys the component does not act on: each one a problem, so nothing is silently ignored. */
function componentProblems(config: StackConfig, raw: Record<string, string>): Problem[] {
  const problems: Problem[] = [];
  for (const key of ["url", "origin", "clientId", "username", "password"]) {
    if (raw[qualified(key)] !== undefined) {
      problems.push({
        path: key,
        message:
          `the Tenants component connects through its provider, whose settings are ${PACKAGE}:${key}; ` +
          `move it there: ${key === "password" ? setSecretHint(`${PACKAGE}:${key}`) : `\`pulumi config set ${PACKAGE}:${key} <value>\``} ` +
          `and \`pulumi config rm ${qualified(key)}\``,
      });
    }
  }
  const blocks = checkStackBlocks(config);
  if (blocks.registry)
    problems.push({
      path: "registry",
      message: "is not declared by the Tenants component; the TypeScript program (tenantsFromConfig) declares it",
    });
  if (blocks.receiver) {
    problems.push({
      path: "billingReceiver",
      message: "is not declared by the Tenants component; the TypeScript program (tenantsFromConfig) declares it",
    });
  }
  return problems;
}

export interface TenantsSource {
  stack: string;
  /** The stack's config as the engine sends it to Construct (`namespace:key` → text). */
  config: Record<string, string>;
  /** Whether the key is one of the config's secrets (the request's configSecretKeys). */
  isSecret(key: string): boolean;
}

/**
 * The stack's tenants, read and checked as the TypeScript program reads them; a config with problems throws one
 * Error whose message is one line per problem (`Pulumi.<stack>.yaml: backup-portal:<path>: <problem>; <fix>`).
 */
export function readTenants(src: TenantsSource): StackConfig {
  const file = `Pulumi.${src.stack}.yaml`;
  const read = readStackConfig({ config: src.config, isSecret: src.isSecret });
  if (!read.config) throw new Error(configProblemsText(file, read.problems));
  const problems = componentProblems(read.config, src.config);
  if (problems.length) throw new Error(configProblemsText(file, problems));
  return read.config;
}

function outputs(d: Declared): Record<keyof typeof TENANTS_OUTPUTS, pulumi.Output<unknown>> {
  const collect = (entries: Record<string, pulumi.CustomResource>, key: string): pulumi.Output<unknown> => {
    const values: Record<string, pulumi.Output<unknown>> = {};
    for (const [name, r] of Object.entries(entries)) values[name] = (r as unknown as Record<string, pulumi.Output<unknown>>)[key];
    return pulumi.output(values);
  };
  return {
    businessUnitIds: collect(d.businessUnits, "businessUnitId"),
    consumerIds: collect(d.consumers, "consumerId"),
    nodeNames: collect(d.nodes, "activatedName"),
  };
}

class TenantsComponent extends pulumi.ComponentResource {
  constructor(name: string, opts: pulumi.ComponentResourceOptions) {
    super(TENANTS_TYPE, name, {}, opts);
  }

  /** The outputs, registered with the engine (the component's state). */
  publish(outputs: pulumi.Inputs): void {
    this.registerOutputs(outputs);
  }
}

/** Constructs the component `name` (the engine's Construct, through the SDK's provider server): its URN and outputs. */
export async function constructTenants(
  name: string,
  opts: pulumi.ComponentResourceOptions,
): Promise<{ urn: pulumi.Output<string>; state: Record<string, unknown> }> {
  const src: TenantsSource = {
    stack: pulumi.getStack(),
    config: pulumi.runtime.allConfig(),
    // The SDK's own answer (from the request's configSecretKeys); exported by its runtime, not declared in its typings.
    isSecret: (key) => (pulumi.runtime as unknown as { isConfigSecret(k: string): boolean }).isConfigSecret(key),
  };
  const config = readTenants(src);
  // The names against the portal, read only, before anything is declared (as the TypeScript program does).
  const nameProblems = await validateNames(config.tenants, new References(portal()), config.rootBusinessUnitId);
  if (nameProblems.length) throw new Error(configProblemsText(`Pulumi.${src.stack}.yaml`, nameProblems));
  const component = new TenantsComponent(name, opts);
  const declared = declareTenants(config.tenants, {
    rootBusinessUnitId: config.rootBusinessUnitId,
    protectBusinessUnits: config.protectBusinessUnits,
    deletionComment: config.deletionComment,
    secret: config.secret,
    resourceOptions: { parent: component },
    classes: PLUGIN_CLASSES,
  });
  const state = outputs(declared);
  component.publish(state);
  return { urn: component.urn, state };
}
