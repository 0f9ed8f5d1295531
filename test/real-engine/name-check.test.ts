// The stacks/ program's name check (provider/resources/name-check.ts) under the real Pulumi CLI, against the
// emulator: every wrong name of the tenants block at once, one line each naming the stack file and the key path, in
// the preview; nothing on the portal when a name is wrong, with or without the preview before the up; and a stack
// whose names did not change asks the portal nothing.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import type { State } from "../../emulator";
import { countByEndpoint } from "../../bench/ideal";
import type { Workspace } from "./cli";
import YAML from "yaml";
import { startEmulator, type Emulator } from "../support/portal";
import { connectionYaml, portalWrites, stacksWorkspace } from "./project";

const STACK = "names";
const FILE = `Pulumi.${STACK}.yaml`;

const TENANTS = `
  backup-portal:protectBusinessUnits: false
  backup-portal:tenants:
    acme:
      name: Acme AB
      registrationNumber: "556677-8899"
      timeZone: W. Europe Standard Time
      consumers:
        web01:
          node:
            operatingSystem: Linux
            type: File server
            domain: STANDARD
            cpuCount: 2
            tsmName: NC-ACME-WEB01
    globex:
      name: Globex Corporation
      registrationNumber: "998877-6655"
      timeZone: UTC
      consumers:
        files:
          node:
            operatingSystem: Windows server
            type: File server
            domain: 1YEAR
            cpuCount: 2
            tsmName: NC-GLOBEX-FILES
`;

/** The portal's objects, to compare before and after a run. */
const objects = (s: State) => ({ businessUnits: s.businessUnits, consumers: s.consumers, nodes: s.nodes });

/** The `error:` lines of the CLI's Diagnostics section (each failure once; the progress display repeats them). */
function diagnosticErrors(out: string): string[] {
  const at = out.indexOf("Diagnostics:");
  assert.ok(at >= 0, `no Diagnostics section:\n${out}`);
  return out
    .slice(at)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("error: "));
}

/** The problem lines the name check reported: what follows "has a problem: " in each of them. */
function problems(out: string): string[] {
  return diagnosticErrors(out).map((l) => {
    const m = /^error: pulumi-nodejs:dynamic\/backup-portal:NameCheck resource 'tenants' has a problem: (.*)$/.exec(l);
    assert.ok(m, `an error that is not the name check's: ${l}\n${out}`);
    return m[1];
  });
}

const NO_TRACE = /^\s+at .+[:(]|unhandled exception|Error: /m;

/** A key path of the tenants block, as the stack file holds it. */
type KeyPath = Array<string>;

describe("real engine: the stacks/ program's name check", function () {
  this.timeout(15 * 60_000);
  // One emulator for the whole suite, not reset between the tests: each test goes on from the stack the last one left.
  let emu: Emulator;
  let ws: Workspace;

  /** Sets values of the stack file's tenants block (the CLI's encryptionsalt and secure values stay as they are). */
  const setNames = (values: Array<[KeyPath, string]>) => {
    const doc = YAML.parseDocument(fs.readFileSync(ws.stackFile, "utf8"));
    for (const [path, value] of values) doc.setIn(["config", "backup-portal:tenants", ...path], value);
    fs.writeFileSync(ws.stackFile, doc.toString());
  };
  const GOOD: Array<[KeyPath, string]> = [
    [["acme", "consumers", "web01", "node", "operatingSystem"], "Linux"],
    [["globex", "consumers", "files", "node", "domain"], "1YEAR"],
    [["acme", "timeZone"], "W. Europe Standard Time"],
  ];
  const WRONG: Array<[KeyPath, string]> = [
    [["acme", "consumers", "web01", "node", "operatingSystem"], "Solaris"],
    [["globex", "consumers", "files", "node", "domain"], "7YEARS"],
  ];
  const WRONG_LINES = [
    `${FILE}: backup-portal:tenants.acme.consumers.web01.node.operatingSystem: unknown operating system "Solaris"; valid: `,
    `${FILE}: backup-portal:tenants.globex.consumers.files.node.domain: unknown policy domain of the default backup server "7YEARS"; valid: `,
  ];

  /** Asserts `out` reports exactly the problems starting with `lines`, in that order, and nothing else as an error. */
  const assertProblems = (out: string, lines: string[]) => {
    const got = problems(out);
    assert.equal(got.length, lines.length, out);
    got.forEach((line, i) => assert.ok(line.startsWith(lines[i]), `${line}\n  does not start with\n${lines[i]}`));
    assert.doesNotMatch(out, NO_TRACE, "no stack trace");
  };

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    ws = stacksWorkspace(STACK, connectionYaml(emu) + TENANTS);
    await ws.ok(["stack", "init"]);
    await ws.setSecret("backup-portal:password", "admin");
  });

  it("a wrong operating system and a wrong domain in two tenants: both in one preview, one line each, nothing registered under them", async () => {
    setNames(WRONG);
    emu.clearRequests();
    const r = await ws.pulumi(["preview"]);
    const out = r.stdout + r.stderr;
    assert.notEqual(r.code, 0, out);
    assertProblems(out, WRONG_LINES);
    // Each line names what the portal has, read through the check: "Linux" among the operating systems.
    assert.match(problems(out)[0], /valid: .*\bLinux\b/);
    assert.doesNotMatch(out, /BusinessUnit|Consumer|:Node /, "no business unit, consumer or node in the plan");
    assert.deepEqual(portalWrites(emu), []);
  });

  it("up --skip-preview with the wrong names: the same lines, and nothing on the portal changes", async () => {
    setNames(WRONG);
    const before = objects(emu.state());
    emu.clearRequests();
    const r = await ws.pulumi(["up", "--yes", "--skip-preview"]);
    const out = r.stdout + r.stderr;
    assert.notEqual(r.code, 0, out);
    assertProblems(out, WRONG_LINES);
    assert.deepEqual(portalWrites(emu), []);
    assert.deepEqual(objects(emu.state()), before);
    // Nothing of the tenants in the state either: the next up creates them all.
    const exported = JSON.parse((await ws.ok(["stack", "export"])).stdout).deployment.resources ?? [];
    assert.deepEqual(
      exported.map((x: { type: string }) => x.type).filter((t: string) => /BusinessUnit|Consumer|Node$/.test(t)),
      [],
    );
  });

  it("with the names put right, up creates the tenants; an unchanged preview and up then ask the portal nothing", async () => {
    setNames(GOOD);
    const up = await ws.ok(["up", "--yes"]);
    // The check, 2 business units, 2 consumers and their nodes (the stack itself was created by the failed up).
    assert.match(up.stdout, /\+ 7 created/, up.stdout);
    assert.ok(emu.state().businessUnits.some((b) => b.name === "Globex Corporation"));
    emu.clearRequests();
    const preview = await ws.ok(["preview"]);
    assert.match(preview.stdout, /\d+ unchanged/);
    assert.doesNotMatch(preview.stdout, /to create|to update|to delete|to replace/);
    assert.deepEqual(countByEndpoint(emu.requests()), {}, "the preview");
    const again = await ws.ok(["up", "--yes"]);
    assert.doesNotMatch(again.stdout, /created|updated|deleted|replaced/);
    assert.deepEqual(countByEndpoint(emu.requests()), {}, "the up");
  });

  it("a time zone changed to one the portal does not have after a good up: caught by preview and up, nothing written", async () => {
    setNames([[["acme", "timeZone"], "Mars/Olympus"]]);
    const line = `${FILE}: backup-portal:tenants.acme.timeZone: unknown time zone (a windowsId, a display name or an id) "Mars/Olympus"; valid: `;
    try {
      emu.clearRequests();
      const preview = await ws.pulumi(["preview"]);
      assert.notEqual(preview.code, 0, preview.stdout + preview.stderr);
      assertProblems(preview.stdout + preview.stderr, [line]);
      const up = await ws.pulumi(["up", "--yes", "--skip-preview"]);
      assert.notEqual(up.code, 0, up.stdout + up.stderr);
      assertProblems(up.stdout + up.stderr, [line]);
      assert.deepEqual(portalWrites(emu), []);
      const acme = emu.state().businessUnits.find((b) => b.name === "Acme AB")!;
      assert.equal(emu.state().timeZones.find((z) => z.id === acme.timeZoneId)?.windowsId, "W. Europe Standard Time");
    } finally {
      setNames(GOOD);
    }
  });

  after(async () => {
    await emu?.close();
    ws?.remove();
  });
});
