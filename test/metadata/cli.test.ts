import assert from "node:assert/strict";
import { run, CliIo } from "../../provider/cli/metadata";
import { metadataOptions } from "../../provider/cli/metadata-options";
import { UsageError } from "../../provider/cli/args";
import { MetadataService, SAMPLE_METADATA, startMetadataService } from "../../emulator/metadata-service";
import * as fs from "fs";
import * as path from "path";
import { cleanupFixtures, hasCommand, jolietRecord, makeIso, writeDriveTree } from "./helpers";

function capture(): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: "",
    stderr: "",
    out: (t: string) => {
      io.stdout += t;
    },
    err: (t: string) => {
      io.stderr += t;
    },
  };
  return io;
}

describe("metadata: backup-portal metadata CLI", () => {
  let svc: MetadataService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });
  after(cleanupFixtures);

  it("prints the network metadata as JSON, without user data by default", async () => {
    svc = await startMetadataService({ userData: "secret" });
    const io = capture();
    assert.equal(await run(["--url", svc.url, "--no-config-drive"], io), 0, io.stderr);
    const printed = JSON.parse(io.stdout);
    assert.equal(printed.source, "network");
    assert.equal(printed.location, `${svc.url}/openstack/latest/meta_data.json`);
    assert.equal(printed.metadata.uuid, SAMPLE_METADATA.uuid);
    assert.deepEqual(printed.metadata.meta, SAMPLE_METADATA.meta);
    assert.ok(!("userData" in printed) && !("raw" in printed));
    assert.equal(svc.requests.length, 1, "user_data not fetched without --user-data");
    assert.equal(io.stderr, "");
  });

  it("--user-data (and --raw) add user data and the raw document", async () => {
    svc = await startMetadataService({ userData: "#cloud-config\n" });
    const io = capture();
    assert.equal(await run([`--url=${svc.url}`, "--no-config-drive", "--user-data", "--raw"], io), 0, io.stderr);
    const printed = JSON.parse(io.stdout);
    assert.equal(printed.userData, "#cloud-config\n");
    assert.deepEqual(printed.raw, SAMPLE_METADATA);
  });

  it("--user-data prints null when there is none", async () => {
    svc = await startMetadataService({ userData: null });
    const io = capture();
    assert.equal(await run(["--url", svc.url, "--no-config-drive", "--user-data"], io), 0);
    assert.equal(JSON.parse(io.stdout).userData, null);
  });

  it("--config-drive <dir> reads the drive", async () => {
    const dir = writeDriveTree({ metadata: { uuid: "cli-drive", meta: null }, userData: "x" });
    const io = capture();
    assert.equal(await run(["--config-drive", dir, "--user-data"], io), 0, io.stderr);
    const printed = JSON.parse(io.stdout);
    assert.equal(printed.source, "config-drive");
    assert.equal(printed.metadata.uuid, "cli-drive");
    assert.deepEqual(printed.metadata.meta, {});
    assert.equal(printed.userData, "x");
  });

  it("a timeout is an error on stderr with exit code 1", async () => {
    svc = await startMetadataService({ delayMs: 1500 });
    const io = capture();
    assert.equal(await run(["--url", svc.url, "--no-config-drive", "--timeout", "100", "--attempts", "1"], io), 1);
    assert.equal(io.stdout, "");
    assert.match(io.stderr, /^backup-portal metadata: metadata service: GET .*meta_data\.json timed out after 100 ms, 1 attempt made/);
    assert.equal(svc.requests.length, 1);
  });

  it("an image that cannot be read is exit code 1 (not 2: the arguments were fine), naming the image", async function () {
    if (!hasCommand("genisoimage")) this.skip();
    const tree = writeDriveTree({ metadata: { uuid: "cli-image" } });
    fs.writeFileSync(path.join(tree, "openstack", "latest", "vendor_data.json"), "{}");
    const iso = makeIso(tree, ["-J"]);
    const bytes = fs.readFileSync(iso);
    bytes[jolietRecord(bytes, "vendor_data.json") + 32] -= 1; // an odd Joliet name length
    const rec = jolietRecord(bytes, "meta_data.json");
    bytes.writeUInt32LE(0x7fffffff, rec + 10); // and a size over the reader's limit
    bytes.writeUInt32BE(0x7fffffff, rec + 14);
    fs.writeFileSync(iso, bytes);
    const io = capture();
    assert.equal(await run(["--config-drive", iso], io), 1, io.stderr);
    assert.equal(io.stdout, "");
    assert.ok(
      io.stderr.startsWith(
        `backup-portal metadata: meta_data.json at ${iso}:/openstack/latest/meta_data.json is larger than the reader's cap`,
      ),
      io.stderr,
    );
    assert.ok(!io.stderr.includes("usage:"), "not reported as bad arguments");
  });

  it("a broken document is an error with exit code 1", async () => {
    svc = await startMetadataService({ metadata: "[]" });
    const io = capture();
    assert.equal(await run(["--url", svc.url, "--no-config-drive"], io), 1);
    assert.match(
      io.stderr,
      /invalid meta_data\.json from http:\/\/127\.0\.0\.1:\d+\/openstack\/latest\/meta_data\.json: expected a JSON object, got an array/,
    );
  });

  it("--verbose reports each request on stderr", async () => {
    svc = await startMetadataService({ failFirst: { count: 1, status: 503, retryAfter: 0 } });
    const io = capture();
    assert.equal(await run(["--url", svc.url, "--no-config-drive", "--verbose"], io), 0);
    assert.match(io.stderr, /metadata: GET .*meta_data\.json: 503 \(attempt 1\)\nmetadata: GET .*meta_data\.json: 200 \(attempt 2\)/);
  });

  it("user_data answering 500 is a warning on stderr, not a failure (--user-data prints null); --help states the deadline's reason", async () => {
    svc = await startMetadataService({ paths: { "latest/user_data": { status: 500 } }, userData: "x" });
    const io = capture();
    assert.equal(
      await run(["--url", svc.url, "--no-config-drive", "--user-data", "--attempts", "1", "--deadline", "5000"], io),
      0,
      io.stderr,
    );
    assert.equal(JSON.parse(io.stdout).userData, null);
    assert.match(io.stderr, /^backup-portal metadata: warning: user_data treated as absent .*answered HTTP 500/m);
    const help = capture();
    assert.equal(await run(["--help"], help), 0);
    assert.match(help.stdout.replace(/\s+/g, " "), /--deadline <ms>.*twice cloud-init's worst case for one document/);
  });

  it("a source switched off (meta.dsmode disabled) is printed, and said once on stderr; a timeout comes with a hint, other failures without", async () => {
    svc = await startMetadataService({ metadata: { ...SAMPLE_METADATA, meta: { dsmode: "disabled" } } });
    const io = capture();
    assert.equal(await run(["--url", svc.url, "--no-config-drive"], io), 0, io.stderr);
    assert.equal(JSON.parse(io.stdout).disabled, true);
    assert.equal(
      io.stderr,
      `backup-portal metadata: warning: meta.dsmode is "disabled" at ${svc.url}/openstack/latest/meta_data.json: cloud-init does not use this source, and register refuses to run\n`,
    );
    await svc.close();
    svc = await startMetadataService({ delayMs: 1500 });
    const slow = capture();
    assert.equal(await run(["--url", svc.url, "--no-config-drive", "--timeout", "100", "--attempts", "1"], slow), 1);
    assert.ok(
      slow.stderr.endsWith(
        "\nhint: not on an instance, or the service is unreachable from here; try --config-drive or a larger --timeout\n",
      ),
      slow.stderr,
    );
    await svc.close();
    svc = await startMetadataService({ metadata: "[]" });
    const broken = capture();
    assert.equal(await run(["--url", svc.url, "--no-config-drive"], broken), 1);
    assert.doesNotMatch(broken.stderr, /hint:/);
    assert.equal(broken.stderr.split("\n").length, 2, broken.stderr);
  });

  it("--help prints usage; bad arguments exit 2", async () => {
    const help = capture();
    assert.equal(await run(["--help"], help), 0);
    assert.match(help.stdout, /usage: backup-portal metadata/);
    for (const argv of [
      ["--bogus"],
      ["--timeout", "abc"],
      ["--timeout"],
      ["--url", "not a url"],
      ["--user-data=yes"],
      ["--platform", "a/b", "--no-config-drive"],
      ["--api-version", "..", "--no-config-drive"],
      ["--attempts", "9".repeat(400), "--no-config-drive"],
      ["--deadline", "0", "--no-config-drive"],
      ["--deadline", "9".repeat(400), "--no-config-drive"],
    ]) {
      const io = capture();
      assert.equal(await run(argv, io), 2, `${argv.join(" ")}: ${io.stderr}`);
      assert.match(io.stderr, /^backup-portal metadata: /);
      assert.match(io.stderr, /usage: backup-portal metadata/, "bad arguments come with the usage");
    }
  });

  it("writes to process.stdout when no io is given", async () => {
    svc = await startMetadataService();
    const original = process.stdout.write.bind(process.stdout);
    let written = "";
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written += chunk.toString();
      return true;
    }) as typeof process.stdout.write;
    let code: number;
    try {
      code = await run(["--url", svc.url, "--no-config-drive"]);
    } finally {
      process.stdout.write = original;
    }
    assert.equal(code, 0);
    assert.equal(JSON.parse(written).metadata.uuid, SAMPLE_METADATA.uuid);
  });
});

describe("metadata: the reader's options from the command line (metadataOptions)", () => {
  it("each option given becomes the reader's, under the reader's name; the rest keep the reader's defaults", () => {
    assert.deepEqual(metadataOptions({}), {});
    assert.deepEqual(metadataOptions({ "no-config-drive": false, "no-network": false }), {});
    assert.deepEqual(
      metadataOptions({
        url: "http://127.0.0.1:9",
        platform: "openstack",
        "api-version": "2018-08-27",
        timeout: 5,
        attempts: 2,
        deadline: 9,
        "no-config-drive": true,
        "no-network": true,
      }),
      {
        url: "http://127.0.0.1:9",
        platform: "openstack",
        version: "2018-08-27",
        timeoutMs: 5,
        attempts: 2,
        deadlineMs: 9,
        discoverConfigDrive: false,
        network: false,
      },
    );
  });

  it("a value the reader refuses is a UsageError that names the option as the command line spells it", () => {
    const cases: Array<[Record<string, string | number>, string]> = [
      [{ platform: "a/b" }, '--platform must be a single non-empty path segment, got "a/b"'],
      [{ "api-version": ".." }, '--api-version must be a single non-empty path segment, got ".."'],
      [{ timeout: 0 }, "--timeout must be a number >= 1, got 0"],
      [{ attempts: 0 }, "--attempts must be a number >= 1, got 0"],
      [{ deadline: 0.5 }, "--deadline must be a number >= 1, got 0.5"],
      // Not one of the reader's option names: the message stays as the reader wrote it.
      [{ url: "ftp://127.0.0.1" }, 'metadata service URL must be an http(s) URL, got "ftp://127.0.0.1"'],
    ];
    for (const [values, message] of cases) {
      assert.throws(
        () => metadataOptions(values),
        (e: Error) => e instanceof UsageError && e.message === message,
        JSON.stringify(values),
      );
    }
  });

  it("a bug is not reported as a bad argument", () => {
    assert.throws(() => metadataOptions({ platform: 5 }), TypeError);
  });

  it("the command says which option is wrong", async () => {
    const io = capture();
    assert.equal(await run(["--platform", "a/b", "--no-config-drive"], io), 2);
    assert.ok(
      io.stderr.startsWith('backup-portal metadata: --platform must be a single non-empty path segment, got "a/b"\nusage:'),
      io.stderr,
    );
  });
});
