// Test support for the stack program: the local stack's config and a runner
// that executes the program through the engine stand-in against the emulator.
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import yaml from "js-yaml";
import { TestEngine } from "../engine/engine";
import { runProgramWithEngine } from "../engine/mocks";
import { deployStack, StackSettings } from "../../provider/program/deploy";
import { TenantsConfig } from "../../provider/tenants/model";
import { PortalClient } from "../../provider/portal";

export function localStackConfig(): Record<string, unknown> {
  const file = path.join(__dirname, "..", "..", "stacks", "Pulumi.local.yaml");
  return (yaml.load(fs.readFileSync(file, "utf8")) as { config: Record<string, unknown> }).config;
}

export function localTenants(): TenantsConfig {
  return structuredClone(localStackConfig()["backup-portal:tenants"]) as TenantsConfig;
}

export function settings(
  tenants: unknown,
  portal?: PortalClient,
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
    portal,
    ...extra,
  };
}

export function runStack(engine: TestEngine, s: StackSettings, preview = false) {
  return runProgramWithEngine(() => deployStack(s), engine, { preview });
}
