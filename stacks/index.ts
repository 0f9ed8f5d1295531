// The Pulumi program of this project (Pulumi.yaml `main: stacks/index.ts`): reads the
// stack's config and declares its tenants and, when enabled, the registry.
import * as pulumi from "@pulumi/pulumi";
import { PortalClient } from "../provider/portal/client";
import { resolveSettings } from "../provider/portal/settings";
import { deployStack } from "./program";

const config = new pulumi.Config("backup-portal");

/** A client for the program's read-only name checks, from the same settings the providers use. */
function portalForChecks(): PortalClient | undefined {
  try {
    return new PortalClient(resolveSettings((key) => config.get(key.slice("backup-portal:".length))));
  } catch {
    return undefined; // not configured here: each resource's check still validates its names
  }
}

/** The portal connection as stack config holds it, for what the stack deploys into a cluster. */
function connectionFromConfig() {
  const [url, origin, clientId, username] = ["url", "origin", "clientId", "username"].map((k) => config.get(k));
  const password = config.getSecret("password");
  return url && origin && clientId && username && password ? { url, origin, clientId, username, password } : undefined;
}

/** Whether `key` is set and stored as a secret (a value set without --secret sits in plain text in the stack file). */
function storedAsSecret(key: string): boolean {
  // The SDK's own answer (from the secret keys the CLI hands the program); exported by its runtime but not
  // declared in its typings.
  const isConfigSecret = (pulumi.runtime as unknown as { isConfigSecret(k: string): boolean }).isConfigSecret;
  return isConfigSecret(`${config.name}:${key}`);
}

/** A secret setting, refusing one stored in plain text, with the command that fixes it. */
function secretSetting(key: string): pulumi.Output<string> {
  if (!storedAsSecret(key) && config.get(key) !== undefined) {
    throw new Error(
      `${config.name}:${key} is stored in plain text in the stack's config file; set it again as a secret: ` +
        `\`pulumi config set --secret ${key} <value>\``,
    );
  }
  return config.requireSecret(key);
}

export = (async () => {
  const portal = portalForChecks();
  try {
    return await deployStack({
      tenants: config.getObject("tenants"),
      rootBusinessUnitId: config.getNumber("rootBusinessUnitId") ?? 1,
      protectBusinessUnits: config.getBoolean("protectBusinessUnits") ?? true,
      // Not the stack's name: moving tenants into another stack (the fleet) must not change every consumer's input.
      deletionComment: config.get("deletionComment") ?? "Removed by Pulumi",
      registry: config.getObject("registry"),
      billingReceiver: config.getObject("billingReceiver"),
      connection: connectionFromConfig(),
      kubeconfig: config.getSecret("kubeconfig"),
      secret: secretSetting,
      hasSecret: storedAsSecret,
      portal,
    });
  } finally {
    portal?.close();
  }
})();
