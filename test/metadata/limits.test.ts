// Size caps on every source, symlinks out of a config drive directory, and no file content in an error.
import assert from "node:assert/strict";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as path from "path";
import {
  MAX_METADATA_BYTES,
  MAX_USER_DATA_BYTES,
  MetadataError,
  readConfigDriveDirectory,
  readConfigDriveImage,
  readNetworkMetadata,
} from "../../provider/metadata";
import { run, CliIo } from "../../provider/cli/metadata";
import { MetadataService, SAMPLE_METADATA, startMetadataService } from "../../emulator/metadata-service";
import { cleanupFixtures, hasCommand, makeIso, tempDir, writeDriveTree } from "./helpers";

// What a shadow file looks like: must never appear in an error or an output.
const SHADOW = "root:$6$Zq8sPv1x$k3yHashThatMustNeverBePrinted0123456789abcdefghijklmnop:19700:0:99999:7:::\n";

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

function rejectsWith(kind: string, read: () => unknown, pattern?: RegExp): void {
  assert.throws(read, (err: unknown) => {
    assert.ok(err instanceof MetadataError, String(err));
    assert.equal(err.kind, kind, err.message);
    if (pattern) assert.match(err.message, pattern);
    assert.ok(!err.message.includes("NeverBePrinted"), "the error quotes the file");
    return true;
  });
}

/** A sparse file of `size` bytes: big to read, nothing on disk. */
function sparse(file: string, size: number): void {
  fs.closeSync(fs.openSync(file, "w"));
  fs.truncateSync(file, size);
}

describe("metadata: config drive directory: symlinks and sizes", () => {
  after(cleanupFixtures);
  const secret = (): string => {
    const file = path.join(tempDir("outside-"), "shadow");
    fs.writeFileSync(file, SHADOW);
    return file;
  };
  const latest = (dir: string, name: string): string => path.join(dir, "openstack", "latest", name);

  it("meta_data.json symlinked out of the drive is refused, without quoting the target", () => {
    const dir = writeDriveTree({ metadata: SAMPLE_METADATA });
    fs.rmSync(latest(dir, "meta_data.json"));
    fs.symlinkSync(secret(), latest(dir, "meta_data.json"));
    rejectsWith("unsafe", () => readConfigDriveDirectory(dir), /leads out of the drive .* \(a symbolic link\); refused/);
  });

  it("user_data symlinked out is refused, and `metadata --user-data` prints nothing of it", async () => {
    const dir = writeDriveTree({ metadata: SAMPLE_METADATA });
    fs.symlinkSync(secret(), latest(dir, "user_data"));
    rejectsWith("unsafe", () => readConfigDriveDirectory(dir));
    const io = capture();
    assert.equal(await run(["--config-drive", dir, "--user-data"], io), 1);
    assert.equal(io.stdout, "");
    assert.ok(!io.stderr.includes("NeverBePrinted"), io.stderr);
  });

  it("a directory symlinked out (openstack -> elsewhere, latest -> ../../openstack/latest) is refused too", () => {
    const elsewhere = writeDriveTree({ metadata: SAMPLE_METADATA });
    const dir = tempDir("drive-");
    fs.symlinkSync(path.join(elsewhere, "openstack"), path.join(dir, "openstack"));
    rejectsWith("unsafe", () => readConfigDriveDirectory(dir));
    const up = tempDir("drive-");
    fs.mkdirSync(path.join(up, "inner", "openstack"), { recursive: true });
    fs.mkdirSync(path.join(up, "openstack", "latest"), { recursive: true });
    fs.writeFileSync(path.join(up, "openstack", "latest", "meta_data.json"), JSON.stringify(SAMPLE_METADATA));
    fs.symlinkSync("../../openstack/latest", path.join(up, "inner", "openstack", "latest"));
    rejectsWith("unsafe", () => readConfigDriveDirectory(path.join(up, "inner")));
  });

  it("symlinks that stay on the drive are followed (latest -> a dated folder)", () => {
    const dir = writeDriveTree({ metadata: SAMPLE_METADATA, userData: "ud", version: "2018-08-27" });
    fs.symlinkSync("2018-08-27", path.join(dir, "openstack", "latest"));
    const found = readConfigDriveDirectory(dir);
    assert.equal(found.version, "latest");
    assert.equal(found.metadata.uuid, SAMPLE_METADATA.uuid);
    assert.equal(found.userData, "ud");
  });

  it("a broken meta_data.json is reported without its content", () => {
    const dir = writeDriveTree({ metadata: SHADOW });
    rejectsWith("invalid", () => readConfigDriveDirectory(dir), new RegExp(`not JSON \\(${Buffer.byteLength(SHADOW)} bytes\\)`));
  });

  it("a 300 MB meta_data.json is refused from its size, not read into memory", () => {
    const dir = writeDriveTree({ metadata: SAMPLE_METADATA });
    sparse(latest(dir, "meta_data.json"), 300 * 1024 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    rejectsWith(
      "too-large",
      () => readConfigDriveDirectory(dir),
      new RegExp(`meta_data.json at .* is larger than the reader's cap of ${MAX_METADATA_BYTES} bytes \\(314572800 bytes\\); refused`),
    );
    assert.ok(process.memoryUsage().arrayBuffers - before < 16 * 1024 * 1024, "no big buffer was allocated");
  });

  it("user_data: Nova's 65535 bytes are read, one more byte or 200 MB is refused", () => {
    const dir = writeDriveTree({ metadata: SAMPLE_METADATA, userData: "u".repeat(MAX_USER_DATA_BYTES) });
    assert.equal(readConfigDriveDirectory(dir).userData?.length, MAX_USER_DATA_BYTES);
    fs.writeFileSync(latest(dir, "user_data"), "u".repeat(MAX_USER_DATA_BYTES + 1));
    rejectsWith(
      "too-large",
      () => readConfigDriveDirectory(dir),
      /user_data at .* is larger than the reader's cap of 65535 bytes \(65536 bytes\)/,
    );
    sparse(latest(dir, "user_data"), 200 * 1024 * 1024);
    rejectsWith("too-large", () => readConfigDriveDirectory(dir));
    assert.equal(readConfigDriveDirectory(dir, { userData: false }).userData, null, "not read when not asked for");
  });

  it("a FIFO as user_data is refused without blocking", function () {
    const dir = writeDriveTree({ metadata: SAMPLE_METADATA });
    if (spawnSync("mkfifo", [latest(dir, "user_data")]).status !== 0) this.skip();
    rejectsWith("invalid", () => readConfigDriveDirectory(dir), /is not a regular file/);
  });

  it("in an ISO image, user_data over the cap is refused", function () {
    if (!hasCommand("genisoimage")) this.skip();
    const iso = makeIso(writeDriveTree({ metadata: SAMPLE_METADATA, userData: "u".repeat(MAX_USER_DATA_BYTES + 1) }));
    rejectsWith("too-large", () => readConfigDriveImage(iso), /user_data at .* is larger than the reader's cap of 65535 bytes/);
  });
});

describe("metadata: network answers are capped", () => {
  let svc: MetadataService | undefined;
  let server: http.Server | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
    if (server)
      await new Promise((done) => {
        server!.closeAllConnections();
        server!.close(done);
      });
    server = undefined;
  });
  const fast = { attempts: 3, backoffMs: 0, timeoutMs: 5000 };

  async function rejects(read: Promise<unknown>, pattern: RegExp): Promise<void> {
    await assert.rejects(read, (err: unknown) => {
      assert.ok(err instanceof MetadataError, String(err));
      assert.equal(err.kind, "too-large", err.message);
      assert.match(err.message, pattern);
      return true;
    });
  }

  it("a meta_data.json over the cap (Content-Length) is refused at once, not retried", async () => {
    svc = await startMetadataService({ metadata: JSON.stringify({ ...SAMPLE_METADATA, pad: "x".repeat(MAX_METADATA_BYTES) }) });
    await rejects(
      readNetworkMetadata({ url: svc.url, ...fast }),
      /meta_data.json at .* is larger than the reader's cap of 1048576 bytes \(\d+ bytes\)/,
    );
    assert.equal(svc.requests.length, 1);
  });

  it("a streamed answer without Content-Length is cut off at the cap", async () => {
    let sent = 0;
    server = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" }); // chunked: no length announced
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = (): void => {
        // Stops by itself after 64 MiB: the reader must give up long before.
        while (sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (sent >= 64 * 1024 * 1024) res.end();
      };
      res.on("drain", more);
      more();
    });
    await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await rejects(
      readNetworkMetadata({ url, ...fast }),
      /meta_data.json at .* is larger than the reader's cap of 1048576 bytes \(more than that\)/,
    );
    assert.ok(sent < 32 * 1024 * 1024, `the server sent ${sent} bytes before the reader hung up`);
  });

  it("user_data over Nova's 65535 bytes is refused; 65535 bytes are read", async () => {
    svc = await startMetadataService({ userData: "u".repeat(MAX_USER_DATA_BYTES + 1) });
    await rejects(readNetworkMetadata({ url: svc.url, ...fast }), /user_data at .* is larger than the reader's cap of 65535 bytes/);
    await svc.close();
    svc = await startMetadataService({ userData: "u".repeat(MAX_USER_DATA_BYTES) });
    assert.equal((await readNetworkMetadata({ url: svc.url, ...fast })).userData?.length, MAX_USER_DATA_BYTES);
  });

  it("a broken meta_data.json is reported without its content", async () => {
    svc = await startMetadataService({ metadata: SHADOW });
    await assert.rejects(readNetworkMetadata({ url: svc.url, ...fast }), (err: unknown) => {
      assert.ok(err instanceof MetadataError && err.kind === "invalid");
      assert.ok(!err.message.includes("NeverBePrinted") && !err.message.includes("root:"), err.message);
      return true;
    });
  });
});
