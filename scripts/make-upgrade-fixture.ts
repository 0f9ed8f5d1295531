// `npx ts-node --transpile-only scripts/make-upgrade-fixture.ts [out-dir]`: a stack really written by release
// 0.2.0, for test/real-engine/upgrade.test.ts (which upgrades it to this checkout's package).
// `... make-upgrade-fixture.ts --check`: makes it again in a temp folder and compares the content that matters
// with the committed fixture's (exit 1 when it differs); `--compare <dir>` compares one made before.
//
// Checks out 0.2.0 (RELEASE) into a temp git worktree, gives it this repository's node_modules (the lockfile is
// the same; otherwise `npm ci` there), builds it (the dynamic-provider host loads its dist/), starts the portal
// emulator on a fixed port from the seed at a fixed time, and runs `pulumi up` of 0.2.0's stacks/ program on
// STACK_YAML under the built Pulumi CLI (scripts/pulumi-tools.sh) with a file backend and the real-engine tests'
// passphrase. It saves into out-dir (test/real-engine/fixtures/upgrade-0.2.0/ by default):
//   - state.json.gz: `pulumi stack export` as the CLI prints it (secrets stay ciphertext), gzipped: each dynamic
//     resource holds its serialized provider twice (inputs and outputs, about 2.8 KB each), so the JSON is about
//     120 KB for these 15 resources and 6 KB gzipped (`zcat state.json.gz` reads it);
//   - Pulumi.upgrade.yaml: the stack file, with the CLI's encryptionsalt and secure values;
//   - portal.json: what the up changed in the emulator's data file (every top-level collection that differs from
//     the seed), without the tokens it issued and the audit log it appended to (the package never reads either),
//     and without the password the emulator chose for a node activated without one (`generatedPassword`: read
//     only by a create, so that no password is in the fixture in plain text). The rest of the data file is the
//     seed at SEED_TIME (emulator/seed.ts), which the test makes again.
// Everything is run again from scratch each time: salts, ciphertexts, dates, UUIDs, where the program ran and
// which of two sibling objects the portal numbered first differ between runs; the resources, their inputs and
// outputs, and the portal's objects do not (`--check` compares them, an object's id by its name).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import YAML from "yaml";
import { startEmulator, seedState, type Emulator, type State } from "../emulator";
import { REPO, type Workspace } from "../test/real-engine/cli";
import { portalWrites, PORTAL_PASSWORD, setAdminPassword, stacksWorkspace } from "../test/real-engine/project";

/** Release 0.2.0 (CHANGELOG "## 0.2.0 (2026-11-25)"). */
export const RELEASE = "a09c636730b2d2236ac411861e4e7f99bedc7bcb";
export const STACK = "upgrade";
export const FIXTURE_DIR = path.join(REPO, "test/real-engine/fixtures/upgrade-0.2.0");
/** The emulator's address while 0.2.0 wrote the stack: in the stack file and in every resource's state. */
export const FIXTURE_PORTAL_URL = "http://127.0.0.1:18799";
/** The emulator's seed is placed relative to a time (emulator/seed.ts): this one, so its objects have fixed dates. */
export const SEED_TIME = Date.parse("2026-11-25T10:55:00Z");
/** Collections of the data file not saved: the tokens of the run, and the audit log (never read by the package). */
export const NOT_SAVED: ReadonlyArray<keyof State> = ["sessions", "accessTokens", "auditLogs"];
/** The node passwords the stack sets through passwordSecret (test values; only ciphertext of them is saved). */
export const NODE_PASSWORDS = {
  web01Password: "Node-pw-upgrade-web01-3b7d",
  ws01Password: "Node-pw-upgrade-ws01-c81e",
  app01Password: "Node-pw-upgrade-app01-5f20",
};

/**
 * The stack: a tenant created with consumers and nodes (passwordSecret), a proxy and a sub-unit with its own
 * consumer; and the seed's Tenant A adopted with its consumer web-01 and that consumer's node, plus a consumer
 * created in it. Business units protected, as a production stack has them.
 */
export const STACK_YAML = `config:
  backup-portal:url: ${FIXTURE_PORTAL_URL}
  backup-portal:origin: http://localhost
  backup-portal:clientId: emulator
  backup-portal:username: admin
  backup-portal:rootBusinessUnitId: 1
  backup-portal:protectBusinessUnits: true
  backup-portal:tenants:
    acme:
      name: Acme AB
      registrationNumber: "556677-8899"
      timeZone: W. Europe Standard Time
      invoiceDay: 1
      tags: [customer]
      consumers:
        web01:
          name: web01.acme.example
          note: public web server
          node:
            operatingSystem: Linux
            type: File server
            domain: STANDARD
            clientOptionSet: DEDUP_AND_COMPRESS
            contact: ops@acme.example
            cpuCount: 4
            tsmName: ACME-WEB01
            passwordSecret: web01Password
        backup-proxy:
          node:
            operatingSystem: Linux
            type: Application server
            domain: STANDARD
            cpuCount: 2
            tsmName: ACME-PROXY
      proxies:
        - agent: backup-proxy
          target: web01
      businessUnits:
        acme-labs:
          name: Acme Labs
          registrationNumber: "556677-8899-2"
          timeZone: UTC
          consumers:
            ws01:
              node:
                operatingSystem: Windows workstation
                type: Workstation
                domain: 1YEAR
                clientOptionSet: FORCE_ENCRYPT
                cpuCount: 2
                tsmName: ACME-LABS-WS01
                passwordSecret: ws01Password
    tenant-a:
      name: Tenant A
      adoptId: 2
      registrationNumber: TA-0001
      timeZone: W. Europe Standard Time
      tags: [tenant]
      consumers:
        web-01:
          adoptId: 1
          note: Web server
          tags: [web]
          node:
            adopt: true
            operatingSystem: Linux
            type: File server
            domain: STANDARD
            clientOptionSet: DEDUP_AND_COMPRESS
            contact: ops@tenant-a.example
            cpuCount: 4
            tsmName: WEB-01
        app01:
          name: app01.tenant-a.example
          limitHighStorage: 200000000000
          node:
            operatingSystem: Linux
            type: Application server
            domain: 30DAYS
            cpuCount: 8
            tsmName: TA-APP01
            passwordSecret: app01Password
`;

/** The emulator's data at SEED_TIME: the portal before 0.2.0's up (then given the tests' admin password). */
export function seededPortal(): State {
  return seedState(SEED_TIME);
}

function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 10 * 60_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) exited ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
}

/** A checkout of RELEASE in a temp git worktree, with node_modules and a build. */
function checkoutRelease(dir: string): void {
  run("git", ["worktree", "add", "--detach", dir, RELEASE], REPO);
  const sameLockfile = spawnSync("git", ["diff", "--quiet", RELEASE, "--", "package-lock.json"], { cwd: REPO }).status === 0;
  if (sameLockfile) fs.symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"));
  else run("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], dir);
  run(process.execPath, [path.join(dir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], dir);
}

/** Runs 0.2.0's up from scratch and saves the fixture into `out`. */
async function make(out: string): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "upgrade-fixture-"));
  const checkout = path.join(tmp, "v0.2.0");
  let emu: Emulator | undefined;
  let ws: Workspace | undefined;
  try {
    const t0 = Date.now();
    checkoutRelease(checkout);
    console.error(`0.2.0 checked out and built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    const dataFile = path.join(tmp, "portal.json");
    fs.writeFileSync(dataFile, JSON.stringify(seededPortal()));
    emu = await startEmulator({ port: Number(new URL(FIXTURE_PORTAL_URL).port), dataFile, quiet: true });
    setAdminPassword(emu);
    ws = stacksWorkspace(STACK, STACK_YAML, { checkout });
    await ws.ok(["stack", "init"]);
    for (const [key, value] of Object.entries({ "backup-portal:password": PORTAL_PASSWORD, ...NODE_PASSWORDS })) {
      await ws.setSecret(key, value);
    }
    const before = emu.state();
    emu.clearRequests();
    const up = await ws.ok(["up", "--yes"]);
    console.error(up.stdout.trim().split("\n").slice(-8).join("\n"));
    if (portalWrites(emu).length === 0) throw new Error("0.2.0's up wrote nothing on the portal");
    // 0.2.0 itself: the stack it wrote is unchanged for it.
    const preview = await ws.ok(["preview", "--diff"]);
    if (/to create|to update|to delete|to replace/.test(preview.stdout)) {
      throw new Error(`0.2.0's own preview shows a change:\n${preview.stdout}`);
    }
    const state = (await ws.ok(["stack", "export"])).stdout;
    const after = emu.state();
    for (const node of after.nodes) delete node.generatedPassword;
    const changed = Object.fromEntries(
      Object.entries(after).filter(
        ([key, value]) => !NOT_SAVED.includes(key as keyof State) && JSON.stringify(value) !== JSON.stringify(before[key as keyof State]),
      ),
    );
    const prettier = await import("prettier");
    const options = { ...(await prettier.resolveConfig(path.join(REPO, "package.json"))) };
    const write = async (name: string, text: string, parser: "json" | "yaml") => {
      fs.writeFileSync(path.join(out, name), await prettier.format(text, { ...options, parser }));
    };
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, "state.json.gz"), zlib.gzipSync(state, { level: 9 }));
    await write(`Pulumi.${STACK}.yaml`, fs.readFileSync(ws.stackFile, "utf8"), "yaml");
    await write("portal.json", JSON.stringify(changed), "json");
    console.error(`saved ${Object.keys(changed).join(", ")} of the portal, the state and the stack file into ${out}`);
  } finally {
    await emu?.close();
    ws?.remove();
    if (fs.existsSync(checkout)) run("git", ["worktree", "remove", "--force", checkout], REPO);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Keys whose values differ on every run and mean nothing for an upgrade: when, and where the program ran. */
const RUN_KEYS = new Set(["time", "magic", "created", "modified", "sourcePosition", "stackTrace"]);

type Kind = "businessUnit" | "consumer" | "node";
/** The portal objects' names by id (a node by its tsmName), from one run's portal.json. */
type Names = Record<Kind, Map<number, string>>;
/** Keys whose number is the id of a portal object, and of which kind (the stack outputs map keys to ids). */
const ID_KEYS: Record<string, Kind> = {
  businessUnitId: "businessUnit",
  parentId: "businessUnit",
  businessUnitIds: "businessUnit",
  consumerId: "consumer",
  agentConsumerId: "consumer",
  targetConsumerId: "consumer",
  consumerIds: "consumer",
  nodeId: "node",
};

/**
 * A fixture's content with what differs on every run replaced: dates, ciphertexts and salts (`v1:...`), UUIDs
 * (the default provider's id, the create markers' random half), a node's password hash (salted with its id), the
 * RUN_KEYS, the order of a resource's dependencies, and the ids of the objects the up created: the program registers sibling resources in whichever
 * order their inputs resolve, so two consumers of a business unit may swap ids between runs. Each id becomes
 * its object's name (`consumer:web01.acme.example`), so what refers to what is still compared.
 */
function normalized(value: unknown, names: Names, kind?: Kind): unknown {
  const named = (k: Kind, id: string | number) => `${k}:${names[k].get(Number(id)) ?? id}`;
  if (typeof value === "number" && kind) return named(kind, value);
  if (typeof value === "string") {
    return value
      .replace(/^v1:[A-Za-z0-9+/=:]+$/, "<encrypted>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<date>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
      .replace(/\/bunits\/(\d+)/g, (_, id) => `/bunits/${named("businessUnit", id)}`)
      .replace(/\/consumers\/(\d+)/g, (_, id) => `/consumers/${named("consumer", id)}`);
  }
  if (Array.isArray(value)) {
    const items = value.map((v) => normalized(v, names, kind));
    // A resource's dependencies are listed in the order they were awaited.
    return items.every((v) => typeof v === "string" && v.startsWith("urn:")) ? items.sort() : items;
  }
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !RUN_KEYS.has(k))
        .map(([k, v]) => [
          k,
          k === "passwordHash" ? "<hash>" : normalized(v, names, ID_KEYS[k] ?? (kind && typeof v === "number" ? kind : undefined)),
        ]),
    );
  }
  return value;
}

/** The fixture in `dir`, each file parsed and normalized, as lines of text to compare. */
export function fixtureContent(dir: string): Record<string, string[]> {
  const read = (name: string) => fs.readFileSync(path.join(dir, name));
  const portal = JSON.parse(read("portal.json").toString("utf8")) as State;
  const names: Names = {
    businessUnit: new Map(portal.businessUnits.map((b) => [b.id, b.name])),
    consumer: new Map(portal.consumers.map((c) => [c.id, c.name])),
    node: new Map(portal.nodes.map((n) => [n.id, n.tsmName ?? String(n.id)])),
  };
  for (const [collection, kind] of [
    ["businessUnits", "businessUnit"],
    ["consumers", "consumer"],
    ["nodes", "node"],
  ] as const) {
    for (const o of portal[collection] as Array<{ id: number | string }>) o.id = `${kind}:${names[kind].get(o.id as number)}`;
  }
  const state = JSON.parse(zlib.gunzipSync(read("state.json.gz")).toString("utf8"));
  for (const r of state.deployment.resources as Array<{ type: string; id?: string }>) {
    const kind = /:BusinessUnit$/.test(r.type) ? "businessUnit" : /:(Consumer|Node)$/.test(r.type) ? "consumer" : undefined;
    if (kind && r.id) r.id = `${kind}:${names[kind].get(Number(r.id))}`;
    if (/:NodeProxy$/.test(r.type) && r.id) r.id = r.id.replace(/\d+/g, (id) => `consumer:${names.consumer.get(Number(id))}`);
  }
  // The order of independent resources in the state is the order their steps ended in, which varies too.
  state.deployment.resources.sort((a: { urn: string }, b: { urn: string }) => a.urn.localeCompare(b.urn));
  for (const collection of ["businessUnits", "consumers", "nodes"] as const) {
    (portal[collection] as Array<{ id: unknown }>).sort((a, b) => String(a.id).localeCompare(String(b.id)));
  }
  const files = {
    "state.json.gz": state,
    [`Pulumi.${STACK}.yaml`]: YAML.parse(read(`Pulumi.${STACK}.yaml`).toString("utf8")),
    "portal.json": portal,
  };
  return Object.fromEntries(Object.entries(files).map(([name, v]) => [name, JSON.stringify(normalized(v, names), null, 1).split("\n")]));
}

/** Compares the content that matters of the fixture in `dir` with the committed one's; true when the same. */
function compare(dir: string): boolean {
  const [committed, made] = [fixtureContent(FIXTURE_DIR), fixtureContent(dir)];
  let same = true;
  for (const name of Object.keys(committed)) {
    const cut = (line?: string) => line?.trim().slice(0, 100);
    const differing = committed[name].flatMap((line, i) =>
      line === made[name][i] ? [] : [`  ${i + 1}: ${cut(line)} | ${cut(made[name][i])}`],
    );
    if (committed[name].length !== made[name].length) differing.push(`  ${committed[name].length} lines | ${made[name].length} lines`);
    console.error(
      differing.length ? `${name} differs (committed | made now):\n${differing.slice(0, 20).join("\n")}` : `${name}: same content`,
    );
    same &&= differing.length === 0;
  }
  return same;
}

/** Makes the fixture again in a temp folder and compares its content with the committed one's. */
async function check(): Promise<boolean> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "upgrade-fixture-check-"));
  try {
    await make(out);
    return compare(out);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--check" || args[0] === "--compare") {
    if (!(args[0] === "--check" ? await check() : compare(path.resolve(args[1])))) process.exitCode = 1;
    return;
  }
  await make(path.resolve(args[0] ?? FIXTURE_DIR));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(`make-upgrade-fixture: ${(err as Error)?.stack ?? String(err)}`);
    process.exit(1);
  });
}
