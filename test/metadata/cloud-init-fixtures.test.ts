// The reader against the fixture data of cloud-init's own unit tests for its OpenStack and ConfigDrive sources
// (derived into fixtures/cloud-init/*.json, which name the file and commit): each case served over loopback by
// the metadata emulator, laid out as a config drive directory, and as an ISO image when genisoimage is here.
// Each case expects what cloud-init's test expects, except where the fixture says `differs` (docs/metadata.md).
import assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import {
  MetadataError,
  MetadataResult,
  newestKnownVersion,
  readConfigDriveDirectory,
  readConfigDriveImage,
  readNetworkMetadata,
} from "../../provider/metadata";
import { MetadataService, startMetadataService } from "../../emulator/metadata-service";
import { cleanupFixtures, hasCommand, makeIso, tempDir } from "./helpers";

type FileBody = { json: unknown } | { text: string };

interface Expect {
  outcome: "ok" | "broken" | "missing";
  version?: string;
  uuid?: string;
  name?: string;
  hostname?: string;
  availabilityZone?: string;
  projectId?: string;
  meta?: Record<string, string>;
  userData?: string | null;
  disabled?: boolean;
  /** Every public key (cloud-init's normalize_pubkey_data), when the case checks them. */
  sshKeys?: string[];
  /** A warning the read must give (a regular expression), when it passes something over. */
  warning?: string;
  /** What cloud-init does where this reader deliberately differs. */
  cloudInit?: string;
  differs?: string;
  cloudInitVersion?: string;
}

interface Case {
  name: string;
  cloudInitTest: string;
  /** The list at /openstack (network); default: the folders of `files`. */
  versions?: string[];
  /** Paths under openstack/; null: no drive at all. */
  files: Record<string, FileBody> | null;
  /** Paths at the drive's root. */
  outside?: Record<string, FileBody>;
  /** Network answers other than the files' (a status for a path under openstack/). */
  answers?: Record<string, { status?: number; delayMs?: number }>;
  /** Only this way of reading applies (an HTTP status has no drive form). */
  only?: "network" | "drive";
  expect: Expect;
}

interface FixtureFile {
  source: { repository: string; commit: string; file: string };
  cases: Case[];
  versionSelection?: Array<{ cloudInitTest: string; versions: string[]; selected: string }>;
}

const load = (name: string): FixtureFile =>
  JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "cloud-init", name), "utf8")) as FixtureFile;

const text = (body: FileBody): string => ("text" in body ? body.text : JSON.stringify(body.json));

/** The case's files as a config drive directory (a path that does not exist when `files` is null). */
function layDrive(c: Case): string {
  const dir = path.join(tempDir("cloud-init-drive-"), "drive");
  if (c.files === null) return dir;
  const write = (rel: string, body: FileBody): void => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text(body));
  };
  for (const [rel, body] of Object.entries(c.files)) write(path.join("openstack", rel), body);
  for (const [rel, body] of Object.entries(c.outside ?? {})) write(rel, body);
  return dir;
}

/** Versions the case's cloud lists: given, or the dated folders and latest of its files. */
function versionsOf(c: Case): string[] {
  if (c.versions) return c.versions;
  return [
    ...new Set(
      Object.keys(c.files ?? {})
        .map((p) => p.split("/")[0])
        .filter((v) => v !== "content"),
    ),
  ].sort();
}

async function expectCase(c: Case, read: () => Promise<MetadataResult>, bodies: string[]): Promise<void> {
  const e = c.expect;
  if (e.outcome === "ok") {
    const r = await read();
    const got: Expect = {
      outcome: "ok",
      version: r.version,
      uuid: r.metadata.uuid,
      name: r.metadata.name,
      hostname: r.metadata.hostname,
      availabilityZone: r.metadata.availabilityZone,
      meta: r.metadata.meta,
      userData: r.userData,
      disabled: r.disabled,
    };
    if (e.projectId !== undefined) got.projectId = r.metadata.projectId;
    if (e.sshKeys !== undefined) got.sshKeys = r.metadata.sshKeys;
    if (e.warning !== undefined) assert.match(r.warnings.join("\n"), new RegExp(e.warning), c.name);
    else assert.deepEqual(r.warnings, [], c.name);
    const want = { ...e };
    delete want.warning;
    delete want.cloudInit;
    delete want.differs;
    delete want.cloudInitVersion;
    assert.deepEqual(got, want, c.name);
    assert.equal(r.metadata.dsmode, e.meta?.dsmode);
    return;
  }
  await assert.rejects(read(), (err: unknown) => {
    assert.ok(err instanceof MetadataError, `${c.name}: ${String(err)}`);
    if (e.outcome === "broken") assert.equal(err.kind, "invalid", `${c.name}: ${err.message}`);
    else assert.ok(err.kind === "not-found" || (err.kind === "http" && err.status === 404), `${c.name}: ${err.kind} ${err.message}`);
    for (const body of bodies) if (body.length > 3) assert.ok(!err.message.includes(body), `${c.name}: the error quotes a file`);
    return true;
  });
}

for (const fixture of ["openstack.json", "configdrive.json"]) {
  const data = load(fixture);
  describe(`metadata: cloud-init's fixtures (${data.source.file} at ${data.source.commit.slice(0, 12)})`, () => {
    let svc: MetadataService | undefined;
    afterEach(async () => {
      await svc?.close();
      svc = undefined;
    });
    after(cleanupFixtures);

    for (const c of data.cases) {
      const bodies = Object.values({ ...c.files, ...c.outside }).map(text);
      const fast = { attempts: 1, timeoutMs: 5000, backoffMs: 0 };

      if (c.only !== "drive")
        it(`${c.name} (${c.cloudInitTest}), over loopback`, async () => {
          const files = Object.fromEntries(Object.entries(c.files ?? {}).map(([p, b]) => [p, text(b)]));
          svc = await startMetadataService({ files, versions: versionsOf(c), paths: c.answers });
          await expectCase(c, () => readNetworkMetadata({ url: svc!.url, ...fast }), bodies);
        });
      if (c.only === "network") continue;

      it(`${c.name} (${c.cloudInitTest}), as a config drive directory`, async () => {
        const dir = layDrive(c);
        await expectCase(c, async () => readConfigDriveDirectory(dir), bodies);
      });

      if (c.files !== null) {
        it(`${c.name} (${c.cloudInitTest}), as a config drive image`, async function () {
          if (!hasCommand("genisoimage")) this.skip();
          const iso = makeIso(layDrive(c), ["-J", "-r"]);
          await expectCase(c, async () => readConfigDriveImage(iso), bodies);
        });
      }
    }

    for (const s of data.versionSelection ?? []) {
      it(`chooses ${s.selected} from [${s.versions.join(", ")}] (${s.cloudInitTest})`, () => {
        assert.equal(newestKnownVersion(s.versions) ?? "latest", s.selected);
      });
    }
  });
}
