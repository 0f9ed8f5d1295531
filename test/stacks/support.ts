// Test support for the stack program: the local stack's config and a runner
// that executes the program through the engine stand-in against the emulator.
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import yaml from "js-yaml";
import assert from "node:assert/strict";
import { CheckFailedError, TestEngine, UpdateError } from "../engine/engine";
import { runProgramWithEngine } from "../engine/mocks";
import { deployStack, StackSettings } from "../../provider/program/deploy";
import { Problem, TenantsConfig } from "../../provider/tenants/model";
import { TYPES } from "../resources/support";
import { PortalClient } from "../../provider/portal";

export function localStackConfig(): Record<string, unknown> {
  const file = path.join(__dirname, "..", "..", "stacks", "Pulumi.local.yaml");
  return (yaml.load(fs.readFileSync(file, "utf8")) as { config: Record<string, unknown> }).config;
}

export function localTenants(): TenantsConfig {
  return structuredClone(localStackConfig()["backup-portal:tenants"]) as TenantsConfig;
}

/**
 * The program's settings for `tenants`. `_portal` is not used: the program sends no request of its own (its names
 * are checked by the name check's Check in the provider host, through the engine's connection); the argument stays
 * where the callers pass it.
 */
export function settings(
  tenants: unknown,
  _portal?: PortalClient,
  secrets: Record<string, string> = {},
  extra: Partial<StackSettings> = {},
): StackSettings {
  return {
    tenants,
    rootBusinessUnitId: 1,
    protectBusinessUnits: false,
    deletionComment: "removed by test",
    secret: (key) => pulumi.secret(secrets[key]),
    hasSecret: (key) => key in secrets,
    ...extra,
  };
}

export function runStack(engine: TestEngine, s: StackSettings, preview = false) {
  return runProgramWithEngine(() => deployStack(s), engine, { preview });
}

/** The stack file the program's name check names under the engine stand-in (stack `test`). */
export const STACK_FILE = "Pulumi.test.yaml";

/**
 * The problems of the program's name check (provider/resources/name-check.ts) in a run that failed at its Check,
 * each line `Pulumi.test.yaml: backup-portal:<path>: <message>` as path and message, and that nothing else failed;
 * undefined when the name check did not fail.
 */
export function nameCheckProblems(err: unknown): Problem[] | undefined {
  if (!(err instanceof UpdateError)) return undefined;
  const at = err.failures.find((f) => f.urn.endsWith(`::${TYPES.NameCheck}::tenants`));
  if (!at) return undefined;
  assert.equal(err.failures.length, 1, `only the name check failed: ${err.message}`);
  assert.ok(at.error instanceof CheckFailedError, `the name check's Check failed, not its ${at.op}: ${err.message}`);
  return at.error.failures.map((f) => {
    assert.equal(f.property, "", "a failure of the whole check, as the CLI prints it: has a problem: <line>");
    const m = new RegExp(`^${STACK_FILE.replace(/\./g, "\\.")}: backup-portal:(\\S+?): (.*)$`).exec(f.reason);
    assert.ok(m, `a line naming the stack file and a key path: ${f.reason}`);
    return { path: m[1], message: m[2] };
  });
}
