// The Pulumi program of this project (Pulumi.yaml `main: stacks/index.ts`): reads the whole stack config
// (provider/stack-config/read.ts) and declares its tenants and, when enabled, the registry and the billing
// receiver. A config with problems fails here, before any resource is registered and before any request to the
// portal: one line per problem, `Pulumi.<stack>.yaml: backup-portal:<path>: <problem>; <fix>`, and no stack
// trace (the SDK prints a RunError's message only).
import * as pulumi from "@pulumi/pulumi";
import { PortalClient } from "../provider/portal/client";
import { resolveSettings } from "../provider/portal/settings";
import { configProblemsText, readStackConfig } from "../provider/stack-config/read";
import { ConfigError, Problem } from "../provider/tenants/model";
import { deployStack } from "./program";

/** The stack file the CLI read the config from (`stackConfigDir` of Pulumi.yaml holds it). */
const file = `Pulumi.${pulumi.getStack()}.yaml`;
const all = pulumi.runtime.allConfig();
// The SDK's own answer (from the secret keys the CLI hands the program); exported by its runtime but not declared
// in its typings.
const isSecret = (key: string) => (pulumi.runtime as unknown as { isConfigSecret(k: string): boolean }).isConfigSecret(key);

const fail = (problems: Problem[]) => new pulumi.RunError(configProblemsText(file, problems));

/** A client for the program's read-only name checks, from the same settings the providers use. */
function portalForChecks(): PortalClient | undefined {
  try {
    return new PortalClient(resolveSettings((key) => all[key]));
  } catch {
    return undefined; // not configured here (nor in the environment): each resource's check still validates its names
  }
}

// A function, not a promise made at load: the SDK awaits what it returns, so a refused config is one handled
// error (a rejected promise made at load is first "unhandled" and then handled late, and Node warns about it).
export = async () => {
  const read = readStackConfig({ config: all, isSecret });
  if (!read.config) throw fail(read.problems);
  const portal = portalForChecks();
  try {
    return await deployStack({ ...read.config, portal });
  } catch (e) {
    // The name checks against the portal find problems too: the same lines.
    if (e instanceof ConfigError) throw fail(e.problems);
    throw e;
  } finally {
    portal?.close();
  }
};
