// Item 3 of issue 23, where it happens: the stack program's real entry (stacks/index.js) run from a stack
// file's config through the engine stand-in (test/engine/, the engine's protect rules, step.go DeleteStep),
// against the emulator. Business units are protected unless the stack says otherwise; removing one from the
// stack file fails the `up` and deletes nothing; the documented way (docs/stack-config.md, "Removing a tenant
// on purpose": `protect: false` on it, `up`, then remove it) deletes it.
import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { runProgramWithEngine } from "../engine/mocks";
import { portalSuite } from "../resources/support";
import { stackConfigFor } from "../support/portal";
import { localStackConfig } from "./support";

const ENTRY = require.resolve("../../stacks/index");

/** The CLI's view of a stack file: every value as text, objects as JSON. */
function cliConfig(file: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(file).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
}

/** The stack file's config without `protectBusinessUnits` (the default applies), pointed at the emulator. */
function stackFile(url: string, edit: (tenants: Record<string, any>) => void = () => undefined): Record<string, string> {
  const file = structuredClone(localStackConfig());
  delete file["backup-portal:protectBusinessUnits"];
  edit(file["backup-portal:tenants"] as Record<string, any>);
  return { ...cliConfig(file), ...stackConfigFor(url) };
}

/** One `pulumi up` (preview deployment, then update) of the real entry point with this stack file. */
function up(engine: Parameters<typeof runProgramWithEngine>[1], config: Record<string, string>) {
  return runProgramWithEngine(() => {
    pulumi.runtime.setAllConfig(config, ["backup-portal:password"]);
    delete require.cache[ENTRY]; // a fresh module per deployment, as the CLI loads it
    return (require(ENTRY) as () => Promise<unknown>)(); // the entry exports the program; the runtime calls it
  }, engine);
}

describe("removing a protected tenant from the stack file (issue 23, item 3)", function () {
  this.timeout(300_000);
  const p = portalSuite();
  afterEach(() => pulumi.runtime.setAllConfig({}));

  it("fails the up with the way out and sends no DELETE; protect: false, up, remove deletes it", async () => {
    const eng = p.engine();
    await up(eng, stackFile(p.emu.url));
    assert.equal(eng.get("globex")!.protect, true, "protected by default: the stack file does not set protectBusinessUnits");

    const mark = p.emu.requests().length;
    const removed = stackFile(p.emu.url, (t) => delete t.globex);
    const err: Error = await up(eng, removed).then(
      () => assert.fail("the up went through"),
      (e: Error) => e,
    );
    assert.match(
      err.message,
      /"urn:pulumi:test::backup-portal::pulumi-nodejs:dynamic\/backup-portal:BusinessUnit::globex" cannot be deleted/,
    );
    assert.match(err.message, /remove the `protect` flag from the resource/);
    const sent = p.emu.requests().slice(mark);
    assert.deepEqual(
      sent.filter((r) => r.method === "DELETE"),
      [],
      "no DELETE: the up's preview failed, so the consumer and node below were kept too",
    );
    assert.deepEqual(
      sent.filter((r) => r.method !== "GET" && r.path !== "/v1/oauth"),
      [],
      "no write at all",
    );
    for (const name of ["globex", "globex/files"]) assert.ok(eng.get(name), `${name} is still in state`);

    // The way out: `protect: false` on the tenant (an up that changes only the protection), then remove it.
    const beforeUnprotect = p.emu.requests().length;
    await up(
      eng,
      stackFile(p.emu.url, (t) => (t.globex.protect = false)),
    );
    assert.ok(!eng.get("globex")!.protect, "unprotected in state");
    assert.deepEqual(
      p.emu
        .requests()
        .slice(beforeUnprotect)
        .filter((r) => r.method !== "GET" && r.path !== "/v1/oauth"),
      [],
      "unprotecting writes nothing to the portal",
    );
    assert.equal(eng.get("acme")!.protect, true, "the other tenants stay protected");
    const run = await up(eng, removed);
    assert.deepEqual(
      run.steps.filter((s) => s.urn.includes("::globex")).map((s) => s.op),
      ["delete", "delete", "delete"],
      "business unit, consumer, node",
    );
    assert.ok(
      p.emu.requests().some((r) => r.method === "DELETE"),
      "now deleted on the portal",
    );
  });
});
