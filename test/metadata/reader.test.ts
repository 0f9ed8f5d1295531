import assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { MetadataError, readInstanceMetadata } from "../../provider/metadata";
import { MetadataService, SAMPLE_METADATA, startMetadataService, METADATA_VERSIONS } from "../../emulator/metadata-service";
import { cleanupFixtures, tempDir, writeDriveTree, fakeRunner, blkidTable } from "./helpers";

describe("metadata: source precedence", () => {
  let svc: MetadataService;
  beforeEach(async () => {
    svc = await startMetadataService({ userData: "network user data" });
  });
  afterEach(async () => {
    await svc.close();
  });
  after(cleanupFixtures);

  it("a config drive wins over the network, and the network is not asked", async () => {
    const dir = writeDriveTree({ metadata: { uuid: "drive-uuid", meta: { from: "drive" } }, userData: "drive user data" });
    const found = await readInstanceMetadata({ url: svc.url, configDrive: dir });
    assert.equal(found.source, "config-drive");
    assert.equal(found.metadata.uuid, "drive-uuid");
    assert.deepEqual(found.metadata.meta, { from: "drive" });
    assert.equal(found.userData, "drive user data");
    assert.equal(svc.requests.length, 0);
  });

  it("a discovered drive wins too", async () => {
    const tree = writeDriveTree({ metadata: { uuid: "discovered" } });
    const procMounts = path.join(tempDir(), "mounts");
    fs.writeFileSync(procMounts, `/dev/sr0 ${tree} iso9660 ro 0 0\n`);
    const { runner } = fakeRunner(blkidTable({ labelLower: ["/dev/sr0"] }));
    const found = await readInstanceMetadata({ url: svc.url, runner, procMounts });
    assert.equal(found.source, "config-drive");
    assert.equal(found.metadata.uuid, "discovered");
    assert.equal(svc.requests.length, 0);
  });

  it("the network is used when no drive is found", async () => {
    const { runner, calls } = fakeRunner(blkidTable({}));
    const found = await readInstanceMetadata({ url: svc.url, runner });
    assert.equal(found.source, "network");
    assert.equal(found.metadata.uuid, SAMPLE_METADATA.uuid);
    assert.equal(found.userData, "network user data");
    assert.equal(calls.filter((c) => c.command === "blkid").length, 4, "the drive was looked for first");
  });

  it("an explicit config drive that is missing is an error, with no fallback", async () => {
    const missing = path.join(tempDir(), "no-drive");
    await assert.rejects(readInstanceMetadata({ url: svc.url, configDrive: missing }), (err: unknown) => {
      assert.ok(err instanceof MetadataError && err.kind === "not-found");
      assert.match(err.message, /no such file or directory/);
      return true;
    });
    assert.equal(svc.requests.length, 0);
  });

  it("the emulator serves the same documents under a dated version and lists versions", async () => {
    const list = await (await fetch(`${svc.url}/openstack`)).text();
    assert.deepEqual(list.split("\n"), [...METADATA_VERSIONS]);
    const dated = await readInstanceMetadata({ url: svc.url, version: "2018-08-27", discoverConfigDrive: false });
    assert.equal(dated.location, `${svc.url}/openstack/2018-08-27/meta_data.json`);
    assert.equal(dated.userData, "network user data");
    assert.equal((await fetch(`${svc.url}/other/latest/meta_data.json`)).status, 404);
    assert.equal((await fetch(`${svc.url}/openstack/latest/meta_data.json`, { method: "POST" })).status, 405);
  });
});
