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
 * `main` pointing at stacks/index.ts and the stack file beside it instead of in stacks/.
 */
export function stacksWorkspace(stack: string, stackYaml: string, opts: { checkout?: string; backendUrl?: string } = {}): Workspace {
  return workspace({
    stack,
    stackYaml,
    backendUrl: opts.backendUrl,
    project: (dir) => {
      const project = path.join(dir, "project");
      fs.mkdirSync(project);
      // `checkout`: another checkout's stacks/ program (an earlier release in a git worktree), else this one's.
      const main = path.join(opts.checkout ?? REPO, "stacks", "index.ts");
      fs.writeFileSync(
        path.join(project, "Pulumi.yaml"),
        `name: backup-portal\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: ${main}\n`,
      );
      return project;
    },
  });
}

/**
 * A workspace for a Pulumi YAML project (`program` is its Pulumi.yaml), with `pluginDir` first on PATH: where the
 * CLI finds `pulumi-resource-backupportal`, as it finds a user's plugin on PATH (the repository's bin/ by default).
 */
export function yamlWorkspace(stack: string, program: string, pluginDir = path.join(REPO, "bin")): Workspace {
  const ws = workspace({
    stack,
    project: (dir) => {
      const project = path.join(dir, "project");
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, "Pulumi.yaml"), program);
      return project;
    },
  });
  ws.env.PATH = [pluginDir, ws.env.PATH].join(path.delimiter);
  return ws;
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
