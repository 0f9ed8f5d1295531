// An exported stack file and its first CI preview (issue 45 items 2 and 4), in process against the emulator: the
// export writes the connection keys it read the portal with (never the password), so only the secret is left to
// add; --merge names each connection key its file lacks, with the value to set; with --stack, a setting neither
// the stack's file nor the environment holds is said at the file's key before any request; and the merge's closing
// line counts what the file declares, as validate counts it, an entry the portal no longer has included.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { startEmulator, Emulator } from "../../emulator";
import { run as exportRun } from "../../provider/cli/export";
import { run as validateRun } from "../../provider/cli/validate";
import { envFor, ORIGIN } from "../support/portal";

async function cli(
  command: typeof exportRun | typeof validateRun,
  argv: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await command(argv, { out: (t) => (out += t), err: (t) => (err += t), env, cwd });
  return { code, out, err };
}

describe("backup-portal export: the connection keys, and the merge's count of the file", function () {
  this.timeout(120_000);
  let emu: Emulator;
  let dir: string;
  before(async () => (emu = await startEmulator({ port: 0, quiet: true })));
  after(async () => emu?.close());
  beforeEach(() => {
    emu.reset();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "export-connection-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: tenants\nruntime: nodejs\n");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("--out writes url, origin, clientId and username as the export read the portal, never the password", async () => {
    const r = await cli(exportRun, ["--out", "Pulumi.prod.yaml", "--no-progress"], envFor(emu), dir);
    assert.equal(r.code, 0, r.err);
    const text = fs.readFileSync(path.join(dir, "Pulumi.prod.yaml"), "utf8");
    const config = (parse(text) as { config: Record<string, unknown> }).config;
    assert.deepEqual(
      Object.keys(config)
        .slice(0, 4)
        .map((k) => [k, config[k]]),
      [
        ["backup-portal:url", emu.url],
        ["backup-portal:origin", ORIGIN],
        ["backup-portal:clientId", "emulator"],
        ["backup-portal:username", "admin"],
      ],
    );
    assert.ok(!("backup-portal:password" in config));
    assert.match(
      text,
      /^# The connection is the export's; add its password, a secret: `pulumi config set --secret backup-portal:password`/m,
    );
    // A URL that carries credentials is not written (the file is committed).
    const withCredentials = await cli(
      exportRun,
      ["--no-progress"],
      { ...envFor(emu), BACKUP_PORTAL_URL: emu.url.replace("http://", "http://admin:admin@") },
      dir,
    );
    assert.equal(withCredentials.code, 0, withCredentials.err);
    assert.ok(!("backup-portal:url" in (parse(withCredentials.out) as { config: Record<string, unknown> }).config));
  });

  it("--merge: the closing line counts what the file declares, as validate does, a consumer gone from the portal included", async () => {
    const file = path.join(dir, "Pulumi.prod.yaml");
    assert.equal((await cli(exportRun, ["--out", file, "--no-progress"], envFor(emu), dir)).code, 0);
    const consumers = emu.state().consumers.length;
    // A consumer deleted on the portal: the file keeps it (a `gone` line), and still declares it.
    const gone = emu.state().consumers.find((c) => c.businessUnitId !== 1)!;
    emu.update((s) => {
      s.consumers = s.consumers.filter((c) => c.id !== gone.id);
      s.nodes = s.nodes.filter((n) => n.consumerId !== gone.id);
    });
    const merged = await cli(exportRun, ["--merge", file, "--no-progress"], envFor(emu), dir);
    assert.equal(merged.code, 0, merged.err);
    assert.match(merged.err, /^gone tenants\.\S+: consumer \d+ is gone from the portal/m);
    const valid = await cli(validateRun, [file, "--offline"], {}, dir);
    assert.equal(valid.code, 0, valid.err);
    const declared = /: valid: (.*); not checked/.exec(valid.out)![1];
    const last = merged.err.trimEnd().split("\n").pop()!;
    assert.equal(last, `${file}: the file declares ${declared}, as backup-portal validate counts them`);
    assert.match(declared, new RegExp(`, ${consumers - emu.state().consumers.filter((c) => c.businessUnitId === 1).length} consumers?,`));
    assert.deepEqual(
      merged.err
        .split("\n")
        .filter((l) => l.includes("not set"))
        .map((l) => l.split(": ")[1]),
      ["backup-portal:password"],
      "the file has its connection keys: only the secret is left to add",
    );
  });

  it("--stack: a setting the stack's file and the environment lack is said at the file's key, before any request", async () => {
    fs.writeFileSync(
      path.join(dir, "Pulumi.prod.yaml"),
      `config:\n  backup-portal:origin: ${ORIGIN}\n  backup-portal:clientId: emulator\n  backup-portal:username: admin\n  backup-portal:tenants: {}\n`,
    );
    emu.clearRequests();
    const r = await cli(exportRun, ["--merge", "Pulumi.prod.yaml", "--stack", "prod", "--no-progress"], { PATH: "/nonexistent" }, dir);
    assert.equal(r.code, 1, r.err);
    assert.deepEqual(
      r.err.split("\n").filter((l) => l.includes("not set")),
      [
        "backup-portal export: Pulumi.prod.yaml: backup-portal:url: not set, and the stack's preview needs it: pulumi config set backup-portal:url <url> --stack prod (or the variable BACKUP_PORTAL_URL in CI)",
        "backup-portal export: Pulumi.prod.yaml: backup-portal:password: not set (a secret): pulumi config set --secret backup-portal:password --stack prod (it asks for it), or the secret BACKUP_PORTAL_PASSWORD in CI",
      ],
    );
    assert.deepEqual(emu.requests(), [], "no request");
  });
});
