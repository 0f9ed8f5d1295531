/**
 * TEST CODE — projects for the real CLI: the stacks/ program as a user's project runs it, and stack files for it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { hashSecret } from "../../emulator/util";
import type { Emulator } from "../support/portal";
import { ORIGIN, startEmulator } from "../support/portal";
import { REPO, workspace, Workspace } from "./cli";

/**
 * A workspace whose project runs the repository's stacks/ program: a Pulumi.yaml like the repository's, with
 * `main` pointing at stacks/index.js (on the compiled package in dist/) and the stack file in the project folder.
 */
export function stacksWorkspace(
  stack: string,
  stackYaml: string,
  opts: { checkout?: string; program?: "ts" | "js"; backendUrl?: string; tenantsJson?: string } = {},
): Workspace {
  return workspace({
    stack,
    stackYaml,
    backendUrl: opts.backendUrl,
    project: (dir) => {
      const project = path.join(dir, "project");
      fs.mkdirSync(project);
      const program = opts.program ?? (opts.checkout ? "ts" : "js");
      let main: string;
      if (opts.checkout) {
        // Another checkout's stacks/ program (an earlier release in a git worktree), as that release ran it.
        main = path.join(opts.checkout, "stacks", program === "js" ? "index.js" : "index.ts");
      } else if (program === "js" && opts.tenantsJson !== undefined) {
        // `backup-portal:tenants` from tenants.json instead of the stack file: the Node.js host hands the program the
        // whole config in one environment variable, capped at 128 KiB on Linux (docs/stack-config.md). The bench's
        // stacks of thousands of resources run the same program so.
        main = "index.js";
        fs.writeFileSync(path.join(project, "tenants.json"), opts.tenantsJson);
        fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "bench", private: true, main: "index.js" }));
        fs.writeFileSync(
          path.join(project, "index.js"),
          [
            `const { runtime } = require("@pulumi/pulumi");`,
            // setAllConfig keeps the config the CLI passed and which of it is secret (setConfig would forget that).
            `const secretKeys = JSON.parse(process.env.PULUMI_CONFIG_SECRET_KEYS || "[]");`,
            `const tenants = require("fs").readFileSync(__dirname + "/tenants.json", "utf8");`,
            `runtime.setAllConfig({ ...runtime.allConfig(), "backup-portal:tenants": tenants }, secretKeys);`,
            `module.exports = require(${JSON.stringify(path.join(REPO, "dist", "provider", "program"))}).tenantsFromConfig();`,
            "",
          ].join("\n"),
        );
        fs.symlinkSync(path.join(REPO, "node_modules"), path.join(project, "node_modules"));
      } else if (program === "js") {
        main = path.join(REPO, "stacks", "index.js");
      } else {
        // The same program in TypeScript on the package's sources, compiled by ts-node on every run: the bench's
        // "before" (`dynamic-ts`). It runs in the project folder, with this repository's node_modules.
        main = "index.ts";
        fs.writeFileSync(
          path.join(project, "index.ts"),
          `import { tenantsFromConfig } from ${JSON.stringify(path.join(REPO, "provider", "program"))};\nexport = tenantsFromConfig();\n`,
        );
        const compilerOptions = {
          target: "ES2022",
          module: "commonjs",
          moduleResolution: "node",
          strict: true,
          esModuleInterop: true,
          skipLibCheck: true,
        };
        fs.writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify({ compilerOptions }, null, 2));
        fs.symlinkSync(path.join(REPO, "node_modules"), path.join(project, "node_modules"));
      }
      fs.writeFileSync(
        path.join(project, "Pulumi.yaml"),
        `name: backup-portal\nruntime:\n  name: nodejs\n  options:\n    typescript: ${program === "ts"}\nmain: ${main}\n`,
      );
      return project;
    },
  });
}

/**
 * A workspace whose project folder holds `files` (name → text; `node_modules` links this repository's), with
 * `pluginDir` first on PATH: where the CLI finds `pulumi-resource-backupportal`, as it finds a user's plugin.
 */
function pluginWorkspace(
  stack: string,
  files: Record<string, string>,
  pluginDir: string,
  backendUrl?: string,
  nodeModules = false,
): Workspace {
  const ws = workspace({
    stack,
    backendUrl,
    project: (dir) => {
      const project = path.join(dir, "project");
      fs.mkdirSync(project);
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(project, name), text);
      if (nodeModules) fs.symlinkSync(path.join(REPO, "node_modules"), path.join(project, "node_modules"));
      return project;
    },
  });
  ws.env.PATH = [pluginDir, ws.env.PATH].join(path.delimiter);
  return ws;
}

/**
 * A workspace for a Pulumi YAML project (`program` is its Pulumi.yaml), with `pluginDir` first on PATH (the
 * repository's bin/ by default).
 */
export function yamlWorkspace(stack: string, program: string, pluginDir = path.join(REPO, "bin"), backendUrl?: string): Workspace {
  return pluginWorkspace(stack, { "Pulumi.yaml": program }, pluginDir, backendUrl);
}

/**
 * A workspace for a Node.js project whose program is `program` (plain JavaScript, run as it is), with this
 * repository's node_modules and `pluginDir` first on PATH: the bench's Node.js floor.
 */
export function nodeWorkspace(stack: string, program: string, pluginDir: string, backendUrl?: string): Workspace {
  const project = "name: bench\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n";
  return pluginWorkspace(stack, { "index.js": program, "Pulumi.yaml": project }, pluginDir, backendUrl, true);
}

/** The plugin's provider config (`<namespace>:url` and the rest) for the emulator's admin, the password as a secret. */
export async function configurePlugin(ws: Workspace, emu: Emulator, namespace = "backupportal"): Promise<void> {
  for (const [key, value] of Object.entries({ url: emu.url, origin: ORIGIN, clientId: "emulator", username: "admin" })) {
    await ws.ok(["config", "set", `${namespace}:${key}`, value]);
  }
  await ws.setSecret(`${namespace}:password`, "admin");
}

/**
 * The hooks of a suite on one emulator (reset before each test) whose workspaces are removed at the end: `keep`
 * a workspace to have it removed.
 */
export function emulatorSuite(): { readonly emu: Emulator; keep(ws: Workspace): Workspace } {
  let emu: Emulator | undefined;
  const spaces: Workspace[] = [];
  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
  });
  beforeEach(() => emu!.reset());
  after(async () => {
    await emu?.close();
    for (const ws of spaces) ws.remove();
  });
  return {
    get emu() {
      return emu!;
    },
    keep: (ws) => (spaces.push(ws), ws),
  };
}

/** The portal password the tests give the emulator's admin (not its seed "admin", which is also the username). */
export const PORTAL_PASSWORD = "Portal-pw-7f3c2e9a";

/** Sets the admin's password on the emulator to PORTAL_PASSWORD. */
export function setAdminPassword(emu: Emulator): void {
  emu.update((s) => {
    const admin = s.users.find((u) => u.username === "admin")!;
    admin.passwordHash = hashSecret(PORTAL_PASSWORD, admin.passwordSalt);
  });
}

/** The connection block of a stack file for the emulator (the password is set as a secret by the CLI). */
export function connectionYaml(emu: Emulator, extra = ""): string {
  return [
    "config:",
    `  backup-portal:url: ${emu.url}`,
    `  backup-portal:origin: ${ORIGIN}`,
    "  backup-portal:clientId: emulator",
    "  backup-portal:username: admin",
    "  backup-portal:rootBusinessUnitId: 1",
    extra,
  ].join("\n");
}

/** Requests that change something on the portal (every method but GET, and not the token request). */
export function portalWrites(emu: Emulator): string[] {
  return emu
    .requests()
    .filter((r) => r.method !== "GET" && r.path !== "/v1/oauth")
    .map((r) => `${r.method} ${r.path}`);
}

/** A resource as `pulumi stack export` writes it, with what the SDK sent of where it was declared. */
export interface ExportedResource {
  type: string;
  urn: string;
  sourcePosition?: string;
  stackTrace?: Array<{ sourcePosition?: string }>;
}

/** The stacks/ program's own resources (its dynamic providers') in a deployment of `pulumi stack export`. */
export function programResources(exported: { deployment: { resources: ExportedResource[] } }): ExportedResource[] {
  return exported.deployment.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/backup-portal:"));
}
