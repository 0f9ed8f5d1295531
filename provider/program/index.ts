// Tenants as data, as a program of the package: a Pulumi program whose `index.ts` is
//
//   import { tenantsFromConfig } from "backup-portal-pulumi";
//   export = tenantsFromConfig();
//
// reads the whole stack config (../stack-config/read.ts) and declares its tenants and, when enabled, the registry
// and the billing receiver (./deploy.ts). This repository's own program (stacks/index.js) is that line too. A
// config with problems fails before any resource is registered and before any request to the portal: one line per
// problem, `Pulumi.<stack>.yaml: backup-portal:<path>: <problem>; <fix>`, and no stack trace (the SDK prints a
// RunError's message only). A name the portal does not have fails at the NameCheck the program registers first, in
// the same lines, before any business unit is registered (./deploy.ts); the program itself sends no request.
import * as pulumi from "@pulumi/pulumi";
import { resolveSettings } from "../portal/settings";
import { stackFileRepeatedKeys } from "../stack-config/file";
import { configProblemsText, readStackConfig } from "../stack-config/read";
import { ConfigError, Problem } from "../tenants/model";
import { deployStack, StackOutputs } from "./deploy";
import { nodeSupportWarning } from "../node-support";
import { escapeControls, printableError } from "../text/controls";
import { plainStackTraces } from "./stack-traces";

export { deployStack } from "./deploy";
export { plainStackTraces } from "./stack-traces";
export type { StackOutputs, StackSettings } from "./deploy";

// The SDK's own answer (from the secret keys the CLI hands the program); exported by its runtime but not declared
// in its typings.
const isSecret = (key: string) => (pulumi.runtime as unknown as { isConfigSecret(k: string): boolean }).isConfigSecret(key);

/**
 * The connection, when something is declared that needs the portal: the same settings the providers resolve, and
 * no request. One that is not configured (nor in the environment) is one line naming the stack file, before any
 * resource: each resource's check would otherwise fail on it, with a stack trace, once per resource.
 */
function assertConnection(config: Record<string, string>, file: string, needed: boolean): void {
  if (!needed) return;
  try {
    resolveSettings((key) => config[key]);
  } catch (e) {
    throw new pulumi.RunError(escapeControls(`${file}: ${(e as Error).message}`));
  }
}

/**
 * The stack program: the stack's `backup-portal:` config (`backup-portal:tenants` and the rest) as resources, its
 * outputs the portal's ids of what it declared. Export what it returns from the program's entry (`export =`):
 * the runtime calls it and awaits its outputs.
 */
export function tenantsFromConfig(): () => Promise<StackOutputs> {
  // The program's process is the runtime's: the SDK's stack trace per resource and per output costs the least so.
  plainStackTraces();
  // A function, not a promise made at load: the SDK awaits what it returns, so a refused config is one handled
  // error (a rejected promise made at load is first "unhandled" and then handled late, and Node warns about it).
  return async () => {
    // On a Node.js package.json engines does not allow: one warning, and the program goes on.
    const nodeWarning = nodeSupportWarning();
    if (nodeWarning) await pulumi.log.warn(nodeWarning);
    // The stack file the CLI read the config from (in the folder `stackConfigDir` of Pulumi.yaml names).
    const file = `Pulumi.${pulumi.getStack()}.yaml`;
    // Problems may quote a tenant's names from the portal: printed with their controls written out (text/controls.ts).
    const fail = (problems: Problem[]) => new pulumi.RunError(escapeControls(configProblemsText(file, problems), ["\n"]));
    const all = pulumi.runtime.allConfig();
    const read = readStackConfig({ config: all, isSecret });
    // A key the file writes twice reached the program once, chosen at random: only the file shows it.
    const root = pulumi.runtime.getRootDirectory() || process.cwd();
    const repeated = stackFileRepeatedKeys(root, pulumi.getStack(), pulumi.getProject()).problems;
    if (!read.config || repeated.length) throw fail([...repeated, ...read.problems]);
    assertConnection(all, file, Object.keys(read.config.tenants).length > 0);
    try {
      // The names against the portal are the NameCheck's: its Check's failures are the same lines, printed by the CLI.
      return await deployStack({ ...read.config, stackFile: file });
    } catch (e) {
      if (e instanceof ConfigError) throw fail(e.problems);
      throw printableError(e);
    }
  };
}
