// The `backup-portal:billingReceiver` block of a stack: deploys the billing
// notification receiver to the stack's cluster, connected to the same portal
// with the same account as the providers.
import * as pulumi from "@pulumi/pulumi";
import { BILLING_RECEIVER_KEYS, keysOf, NOT_A_SECRET_HERE, qualified, setSecretHint } from "../rules/stack-config";
import { unknownKeyHint } from "../rules/suggest";
import type { Problem } from "../tenants/model";
import { BillingReceiverArgs, billingReceiverProblems } from "./component";

export interface PortalConnection {
  url: string;
  origin: string;
  clientId: string;
  username: string;
  password: pulumi.Output<string>;
}

const KEYS = keysOf(BILLING_RECEIVER_KEYS);

/**
 * Validates the block:
 * ```yaml
 * backup-portal:billingReceiver:
 *   enabled: true
 *   businessUnitId: 1          # the reseller business unit (default: rootBusinessUnitId)
 *   namespace: billing
 *   image: registry.example.com/backup-portal-receiver@sha256:<digest>   # built from provider/billing/Dockerfile
 *   secretKey: billingSecret   # secret config key with the Post URL's shared secret
 * ```
 */
export function billingReceiverFromConfig(
  raw: unknown,
  rootBusinessUnitId: number,
  connection: PortalConnection | undefined,
  ctx: { secret(key: string): pulumi.Output<string>; hasSecret(key: string): boolean },
): { args?: BillingReceiverArgs; problems: Problem[]; enabled: boolean } {
  const path = "billingReceiver";
  const problems: Problem[] = [];
  if (raw === undefined || raw === null) return { problems, enabled: false };
  if (typeof raw !== "object" || Array.isArray(raw))
    return { problems: [{ path, message: "must be a map (enabled, businessUnitId, namespace, ...)" }], enabled: false };
  const b = raw as Record<string, unknown>;
  for (const k of Object.keys(b)) {
    if (!KEYS.includes(k)) problems.push({ path: `${path}.${k}`, message: `unknown key; ${unknownKeyHint(k, KEYS)}` });
  }
  const enabled = b.enabled ?? true;
  if (typeof enabled !== "boolean") problems.push({ path: `${path}.enabled`, message: "must be true or false" });
  if (enabled !== true) return { problems, enabled: false };
  if (!connection) {
    problems.push({
      path,
      message:
        "the receiver needs the portal connection in stack config: set backup-portal:url, origin, clientId, username and (--secret) password",
    });
  }
  if (typeof b.secretKey === "string" && b.secretKey.includes(":")) {
    problems.push({
      path: `${path}.secretKey`,
      message: `"${b.secretKey}" must be a key without a namespace: it is read as backup-portal:<key>`,
    });
  } else if (typeof b.secretKey === "string" && !ctx.hasSecret(b.secretKey)) {
    problems.push({
      path: `${path}.secretKey`,
      message: `no secret config key ${qualified(b.secretKey)} (${NOT_A_SECRET_HERE}); set it (at least 8 characters) with ${setSecretHint(b.secretKey)}`,
    });
  }
  const args: BillingReceiverArgs = {
    businessUnitId: (b.businessUnitId as number | undefined) ?? rootBusinessUnitId,
    portal: connection ?? { url: "", origin: "", clientId: "", username: "", password: "" },
    namespace: b.namespace as string | undefined,
    // Missing or not a digest: billingReceiverProblems says how to build and pin it.
    image: b.image as string,
    // No longer supported (a package installed at pod start is not verified): passed on so that the rules refuse it by name.
    ...(b.packageSpec !== undefined ? { packageSpec: b.packageSpec } : {}),
    serviceType: b.serviceType as BillingReceiverArgs["serviceType"],
    port: b.port as number | undefined,
    storage: b.storageSize !== undefined ? { kind: "persistentVolumeClaim", size: String(b.storageSize) } : undefined,
    secret: typeof b.secretKey === "string" && ctx.hasSecret(b.secretKey) ? ctx.secret(b.secretKey) : undefined,
  };
  if (connection) problems.push(...billingReceiverProblems(args).map((m) => ({ path, message: m })));
  return { args: problems.length ? undefined : args, problems, enabled: true };
}
