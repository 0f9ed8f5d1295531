import * as zlib from "zlib";
import assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import {
  findConfigDriveDevices,
  findMountPoint,
  isPartition,
  MAX_METADATA_BYTES,
  MetadataError,
  openIsoImage,
  readConfigDriveDirectory,
  readConfigDriveImage,
  readInstanceMetadata,
  readIsoFile,
} from "../../provider/metadata";
import { SAMPLE_METADATA, startMetadataService } from "../../emulator/metadata-service";
import {
  blkidTable,
  cleanupFixtures,
  fakeRunner,
  hasCommand,
  jolietRecord,
  makeIso,
  noMatch,
  ok,
  tempDir,
  writeDriveTree,
} from "./helpers";

const DRIVE_DOC = { ...SAMPLE_METADATA, uuid: "0a1b2c3d-drive", name: "from-the-drive" };

describe("metadata: config drive directory", () => {
  after(cleanupFixtures);

  it("reads <dir>/openstack/latest/meta_data.json and user_data", () => {
    const dir = writeDriveTree({ metadata: DRIVE_DOC, userData: "#!/bin/sh\necho hi\n" });
    const found = readConfigDriveDirectory(dir);
    assert.equal(found.source, "config-drive");
    assert.equal(found.location, path.join(dir, "openstack", "latest", "meta_data.json"));
    assert.equal(found.metadata.uuid, "0a1b2c3d-drive");
    assert.equal(found.userData, "#!/bin/sh\necho hi\n");
  });

  it("gzip user_data is decompressed, as cloud-init does; a broken one is a named error", () => {
    const script = "#cloud-config\nruncmd:\n  - echo hi\n";
    const found = readConfigDriveDirectory(writeDriveTree({ metadata: DRIVE_DOC, userData: zlib.gzipSync(script) }));
    assert.equal(found.userData, script);
    const broken = Buffer.concat([zlib.gzipSync(script).subarray(0, 12), Buffer.from("not gzip")]);
    assert.throws(
      () => readConfigDriveDirectory(writeDriveTree({ metadata: DRIVE_DOC, userData: broken })),
      (e: MetadataError) => e.kind === "invalid" && /user_data at .* is gzip-compressed but does not decompress/.test(e.message),
    );
  });

  it("no user_data file means null; absent and null meta mean {}", () => {
    const { meta: _omit, ...withoutMeta } = DRIVE_DOC;
    assert.equal(readConfigDriveDirectory(writeDriveTree({ metadata: withoutMeta })).userData, null);
    assert.deepEqual(readConfigDriveDirectory(writeDriveTree({ metadata: withoutMeta })).metadata.meta, {});
    assert.deepEqual(readConfigDriveDirectory(writeDriveTree({ metadata: { ...withoutMeta, meta: null } })).metadata.meta, {});
  });

  it("a broken meta_data.json names the file", () => {
    for (const [body, pattern] of [
      ["nope", /not JSON/],
      ["[{}]", /got an array/],
      ['{"hostname":"h"}', /"uuid" is missing/],
    ] as const) {
      const dir = writeDriveTree({ metadata: body });
      const file = path.join(dir, "openstack", "latest", "meta_data.json");
      assert.throws(
        () => readConfigDriveDirectory(dir),
        (err: unknown) => {
          assert.ok(err instanceof MetadataError && err.kind === "invalid");
          assert.ok(err.message.includes(file), err.message);
          assert.match(err.message, pattern);
          return true;
        },
      );
    }
  });

  it("a directory without the layout, or a missing one, is a clear not-found error", () => {
    const empty = tempDir();
    assert.throws(() => readConfigDriveDirectory(empty), /no openstack\/latest\/meta_data\.json in/);
    assert.throws(() => readConfigDriveDirectory(path.join(empty, "missing")), /no such directory/);
  });

  it("latest missing: the newest dated folder the reader knows; an explicit version has no fallback", () => {
    const dir = writeDriveTree({ metadata: { ...DRIVE_DOC, name: "rocky" }, userData: "ud", version: "2018-08-27" });
    writeDriveTree({ dir, metadata: { ...DRIVE_DOC, name: "folsom" }, version: "2012-08-10" });
    writeDriveTree({ dir, metadata: { ...DRIVE_DOC, name: "future" }, version: "2099-01-01" });
    fs.mkdirSync(path.join(dir, "openstack", "content"));
    const found = readConfigDriveDirectory(dir);
    assert.deepEqual([found.version, found.metadata.name, found.userData], ["2018-08-27", "rocky", "ud"]);
    assert.equal(found.location, path.join(dir, "openstack", "2018-08-27", "meta_data.json"));
    assert.throws(() => readConfigDriveDirectory(dir, { version: "latest" }), /no openstack\/latest\/meta_data\.json in/);
    const unknown = writeDriveTree({ metadata: DRIVE_DOC, version: "2099-01-01" });
    assert.throws(() => readConfigDriveDirectory(unknown), /nor a dated version the reader knows/);
  });

  it("honours platform and version", () => {
    const dir = writeDriveTree({ metadata: DRIVE_DOC, platform: "acme", version: "2018-08-27" });
    assert.equal(readConfigDriveDirectory(dir, { platform: "acme", version: "2018-08-27" }).metadata.name, "from-the-drive");
  });
});

describe("metadata: config drive ISO 9660 image (read without mounting)", function () {
  before(function () {
    if (!hasCommand("genisoimage")) {
      console.warn("    skipped: genisoimage is not installed (apt-get install -y genisoimage); the ISO 9660 image tests need it");
      this.skip();
    }
  });
  after(cleanupFixtures);

  it("reads an image made with genisoimage -R -V config-2 (Rock Ridge names)", () => {
    const iso = makeIso(writeDriveTree({ metadata: DRIVE_DOC, userData: "#cloud-config\nhostname: x\n" }), ["-R"]);
    const found = readConfigDriveImage(iso);
    assert.equal(found.source, "config-drive");
    assert.equal(found.location, `${iso}:/openstack/latest/meta_data.json`);
    assert.deepEqual(found.raw, DRIVE_DOC);
    assert.equal(found.userData, "#cloud-config\nhostname: x\n");
    const image = openIsoImage(iso);
    try {
      assert.equal(image.label, "config-2");
    } finally {
      image.close();
    }
  });

  it("reads Joliet names too (genisoimage -J, as Nova also writes) and finds no user_data", () => {
    const iso = makeIso(writeDriveTree({ metadata: DRIVE_DOC }), ["-J"]);
    const found = readConfigDriveImage(iso);
    assert.equal(found.metadata.uuid, DRIVE_DOC.uuid);
    assert.equal(found.userData, null);
  });

  it("reads Nova's flags (-J -r -l) and a directory spanning several sectors", () => {
    const tree = writeDriveTree({ metadata: DRIVE_DOC, userData: "u".repeat(65_535) });
    const many = path.join(tree, "openstack", "latest");
    for (let i = 0; i < 150; i++) fs.writeFileSync(path.join(many, `network_data_${String(i).padStart(3, "0")}.json`), `{"n":${i}}`);
    const iso = makeIso(tree, ["-J", "-r", "-l", "-allow-lowercase", "-allow-multidot"]);
    const image = openIsoImage(iso);
    try {
      assert.equal(image.readFile("/openstack/latest/network_data_149.json")?.toString(), '{"n":149}');
      assert.equal(image.readFile("/openstack/latest/nothing"), null);
      assert.equal(image.readFile("/openstack/latest"), null, "a directory is not a file");
    } finally {
      image.close();
    }
    const found = readConfigDriveImage(iso);
    assert.equal(found.userData?.length, 65_535, "user data up to Nova's limit, over several sectors");
  });

  it("readInstanceMetadata({configDrive: image}) uses the image", async () => {
    const iso = makeIso(writeDriveTree({ metadata: DRIVE_DOC }));
    const found = await readInstanceMetadata({ configDrive: iso });
    assert.equal(found.metadata.name, "from-the-drive");
  });

  it("a Joliet name of odd length does not break its directory", () => {
    const tree = writeDriveTree({ metadata: DRIVE_DOC, userData: "ud" });
    fs.writeFileSync(path.join(tree, "openstack", "latest", "vendor_data.json"), "{}");
    const iso = makeIso(tree, ["-J"]);
    const bytes = fs.readFileSync(iso);
    bytes[jolietRecord(bytes, "vendor_data.json") + 32] -= 1; // an odd name length: 32 bytes -> 31
    fs.writeFileSync(iso, bytes);
    const found = readConfigDriveImage(iso);
    assert.equal(found.metadata.uuid, DRIVE_DOC.uuid);
    assert.equal(found.userData, "ud");
    // Only the even part of the broken name is decoded.
    assert.equal(readIsoFile(iso, "/openstack/latest/vendor_data.jso")?.toString(), "{}");
  });

  it("a file over the reader's cap in the image is refused before it is read, naming the image", async () => {
    const iso = makeIso(writeDriveTree({ metadata: DRIVE_DOC }), ["-J"]);
    const bytes = fs.readFileSync(iso);
    const rec = jolietRecord(bytes, "meta_data.json");
    bytes.writeUInt32LE(0x7fffffff, rec + 10); // a size over the reader's limit
    bytes.writeUInt32BE(0x7fffffff, rec + 14);
    fs.writeFileSync(iso, bytes);
    for (const read of [async () => readConfigDriveImage(iso), () => readInstanceMetadata({ configDrive: iso })]) {
      await assert.rejects(read(), (err: unknown) => {
        assert.ok(err instanceof MetadataError, `expected a MetadataError, got ${String(err)}`);
        assert.equal(err.kind, "too-large");
        assert.equal(err.location, `${iso}:/openstack/latest/meta_data.json`);
        assert.equal(
          err.message,
          `meta_data.json at ${iso}:/openstack/latest/meta_data.json is larger than the reader's cap of ` +
            `${MAX_METADATA_BYTES} bytes (${0x7fffffff} bytes); refused`,
        );
        return true;
      });
    }
  });

  it("a file that is not ISO 9660 is a clear error", () => {
    const file = path.join(tempDir(), "not.iso");
    fs.writeFileSync(file, Buffer.alloc(40_000));
    assert.throws(() => readConfigDriveImage(file), /not an ISO 9660 image/);
  });
});

describe("metadata: block device discovery (fake command runner)", () => {
  after(cleanupFixtures);
  const noMounts = "/nonexistent/proc-mounts";

  it("label matches come first; type-only partitions are excluded; vdb before vda", async () => {
    const { runner, calls } = fakeRunner({
      ...blkidTable({ labelLower: ["/dev/sr0"], iso9660: ["/dev/sr0", "/dev/vdb"], vfat: ["/dev/vda15", "/dev/vdc"] }),
      "lsblk -d -n -o TYPE /dev/vdb": ok("disk\n"),
      "lsblk -d -n -o TYPE /dev/vdc": ok("disk\n"),
      "lsblk -d -n -o TYPE /dev/vda15": ok("part\n"),
    });
    const found = await findConfigDriveDevices({ runner });
    assert.deepEqual(found, [
      { device: "/dev/sr0", match: "label" },
      { device: "/dev/vdc", match: "type" },
      { device: "/dev/vdb", match: "type" },
    ]);
    assert.deepEqual(
      calls.slice(0, 4).map((c) => c.args.join(" ")),
      [
        "-c /dev/null -t LABEL=config-2 -o device",
        "-c /dev/null -t LABEL=CONFIG-2 -o device",
        "-c /dev/null -t TYPE=iso9660 -o device",
        "-c /dev/null -t TYPE=vfat -o device",
      ],
    );
    assert.ok(!calls.some((c) => c.command === "lsblk" && c.args.includes("/dev/sr0")), "label matches need no partition check");
  });

  it("a labelled partition is kept (label match), an unlabelled one is not", async () => {
    const { runner } = fakeRunner({
      ...blkidTable({ labelUpper: ["/dev/vdb1"], vfat: ["/dev/vdb1", "/dev/vdd1"] }),
      "lsblk -d -n -o TYPE /dev/vdd1": ok("part\n"),
    });
    assert.deepEqual(await findConfigDriveDevices({ runner }), [{ device: "/dev/vdb1", match: "label" }]);
  });

  it("without lsblk, /sys/class/block/<dev>/partition tells partitions", async () => {
    const sys = tempDir("sys-class-block-");
    fs.mkdirSync(path.join(sys, "zzq9"));
    fs.mkdirSync(path.join(sys, "zzq9p1"));
    fs.writeFileSync(path.join(sys, "zzq9p1", "partition"), "1\n");
    const { runner } = fakeRunner({
      ...blkidTable({ iso9660: ["/dev/zzq9", "/dev/zzq9p1"] }),
      lsblk: { code: 127, stdout: "", stderr: "not found" },
    });
    assert.equal(await isPartition("/dev/zzq9p1", { runner, sysBlockDir: sys }), true);
    assert.deepEqual(await findConfigDriveDevices({ runner, sysBlockDir: sys }), [{ device: "/dev/zzq9", match: "type" }]);
  });

  it("blkid missing or failing: no candidates, and the network is used", async () => {
    const svc = await startMetadataService();
    try {
      const { runner } = fakeRunner({ blkid: { code: 127, stdout: "", stderr: "spawn blkid ENOENT" } });
      const logs: string[] = [];
      const found = await readInstanceMetadata({ url: svc.url, runner, log: (m) => logs.push(m) });
      assert.equal(found.source, "network");
      assert.ok(
        logs.some((l) => l.includes("exit 127")),
        logs.join("\n"),
      );
    } finally {
      await svc.close();
    }
  });

  it("mounts read-only on a temp dir, reads, unmounts and removes the dir; a mount failure moves on", async () => {
    const tree = writeDriveTree({ metadata: DRIVE_DOC, userData: "drive user data" });
    const tmp = tempDir("mount-parent-");
    let mountPoint = "";
    const { runner, calls } = fakeRunner({
      ...blkidTable({ labelLower: ["/dev/sr0"], iso9660: ["/dev/vdb"] }),
      "lsblk -d -n -o TYPE /dev/vdb": ok("disk"),
      mount: (args) => {
        if (args.includes("/dev/sr0")) return { code: 32, stdout: "", stderr: "mount: /tmp/x: permission denied." };
        mountPoint = args[args.length - 1];
        fs.cpSync(tree, mountPoint, { recursive: true }); // "mount" the drive
        return ok();
      },
      umount: (args) => {
        for (const entry of fs.readdirSync(args[0])) fs.rmSync(path.join(args[0], entry), { recursive: true });
        return ok();
      },
    });
    const svc = await startMetadataService();
    try {
      const found = await readInstanceMetadata({ url: svc.url, runner, tmpDir: tmp, procMounts: noMounts, isoFallback: false });
      assert.equal(found.source, "config-drive");
      assert.equal(found.location, "/dev/vdb:/openstack/latest/meta_data.json");
      assert.equal(found.metadata.uuid, DRIVE_DOC.uuid);
      assert.equal(found.userData, "drive user data");
      assert.equal(svc.requests.length, 0, "the drive wins: no network request");
    } finally {
      await svc.close();
    }
    const mounts = calls.filter((c) => c.command === "mount");
    assert.deepEqual(
      mounts.map((c) => c.args.slice(0, 3)),
      [
        ["-o", "ro", "/dev/sr0"],
        ["-o", "ro", "/dev/vdb"],
      ],
    );
    assert.deepEqual(
      calls.filter((c) => c.command === "umount").map((c) => c.args),
      [[mountPoint]],
      "only the mounted one is unmounted",
    );
    assert.deepEqual(fs.readdirSync(tmp), [], "temp mount points removed");
  });

  it("a device without the layout or with a broken document moves on to the next", async () => {
    const broken = writeDriveTree({ metadata: "[]" });
    const good = writeDriveTree({ metadata: DRIVE_DOC });
    const trees: Record<string, string> = { "/dev/sr0": broken, "/dev/sr1": tempDir(), "/dev/vdb": good };
    const mounted: Record<string, string> = {};
    const { runner } = fakeRunner({
      ...blkidTable({ labelLower: ["/dev/sr1", "/dev/sr0"], iso9660: ["/dev/vdb"] }),
      "lsblk -d -n -o TYPE /dev/vdb": ok("disk"),
      mount: (args) => {
        mounted[args[3]] = args[2];
        fs.cpSync(trees[args[2]], args[3], { recursive: true });
        return ok();
      },
      umount: (args) => {
        for (const entry of fs.readdirSync(args[0])) fs.rmSync(path.join(args[0], entry), { recursive: true });
        return ok();
      },
    });
    const logs: string[] = [];
    const found = await readInstanceMetadata({ runner, network: false, procMounts: noMounts, tmpDir: tempDir(), log: (m) => logs.push(m) });
    assert.equal(found.location, "/dev/vdb:/openstack/latest/meta_data.json");
    assert.deepEqual(Object.values(mounted), ["/dev/sr1", "/dev/sr0", "/dev/vdb"]);
    assert.ok(
      logs.some((l) => /\/dev\/sr0 .*passed over: invalid meta_data\.json.*got an array/.test(l)),
      logs.join("\n"),
    );
  });

  it("all candidates failing and the network failing: one error with every cause", async () => {
    const { runner } = fakeRunner({
      ...blkidTable({ labelLower: ["/dev/nonexistent-sr9"] }),
      mount: { code: 32, stdout: "", stderr: "mount: only root can do that" },
    });
    const gone = await startMetadataService();
    await gone.close();
    await assert.rejects(
      readInstanceMetadata({ url: gone.url, runner, backoffMs: 1, attempts: 1, procMounts: noMounts, tmpDir: tempDir() }),
      (err: unknown) => {
        assert.ok(err instanceof MetadataError);
        assert.equal(err.kind, "unavailable");
        assert.equal(err.causes.length, 2);
        assert.match(err.message, /\/dev\/nonexistent-sr9: mount -o ro failed \(exit 32\): mount: only root can do that/);
        assert.match(err.message, /network: .*ECONNREFUSED/);
        return true;
      },
    );
  });

  it("an ISO 9660 device that cannot be mounted is read without mounting", async function () {
    if (!hasCommand("genisoimage")) {
      console.warn("    skipped: genisoimage is not installed (apt-get install -y genisoimage)");
      this.skip();
    }
    const image = makeIso(writeDriveTree({ metadata: DRIVE_DOC, userData: "from the image" })); // stands in for /dev/sr0
    const { runner, calls } = fakeRunner({
      ...blkidTable({ labelLower: [image] }),
      mount: { code: 32, stdout: "", stderr: "mount: unknown filesystem type 'iso9660'." },
    });
    const logs: string[] = [];
    const tmp = tempDir();
    const found = await readInstanceMetadata({ runner, network: false, procMounts: noMounts, tmpDir: tmp, log: (m) => logs.push(m) });
    assert.equal(found.location, `${image}:/openstack/latest/meta_data.json`);
    assert.equal(found.userData, "from the image");
    assert.ok(
      logs.some((l) => /reading it as an ISO 9660 image without mounting/.test(l)),
      logs.join("\n"),
    );
    assert.equal(calls.filter((c) => c.command === "umount").length, 0);
    assert.deepEqual(fs.readdirSync(tmp), []);
    await assert.rejects(
      readInstanceMetadata({ runner, network: false, procMounts: noMounts, tmpDir: tmp, isoFallback: false }),
      /mount -o ro failed/,
    );
  });

  it("no drive and the network disabled: unavailable", async () => {
    const { runner } = fakeRunner(blkidTable({}));
    await assert.rejects(readInstanceMetadata({ runner, network: false }), /no usable config drive and the network source is disabled/);
  });

  it("a drive already mounted (e.g. by cloud-init) is read in place, without mount", async () => {
    const tree = writeDriveTree({ metadata: DRIVE_DOC });
    const spaced = path.join(tempDir(), "config drive");
    fs.cpSync(tree, spaced, { recursive: true });
    const procMounts = path.join(tempDir(), "mounts");
    fs.writeFileSync(procMounts, `proc /proc proc rw 0 0\n/dev/sr0 ${spaced.replace(/ /g, "\\040")} iso9660 ro 0 0\n`);
    assert.equal(findMountPoint("/dev/sr0", procMounts), spaced);
    const { runner, calls } = fakeRunner(blkidTable({ labelLower: ["/dev/sr0"] }));
    const found = await readInstanceMetadata({ runner, network: false, procMounts });
    assert.equal(found.location, "/dev/sr0:/openstack/latest/meta_data.json");
    assert.ok(!calls.some((c) => c.command === "mount" || c.command === "umount"));
  });

  it("an unmount failure falls back to a lazy unmount", async () => {
    const tree = writeDriveTree({ metadata: DRIVE_DOC });
    const tmp = tempDir();
    const { runner, calls } = fakeRunner({
      ...blkidTable({ labelLower: ["/dev/sr0"] }),
      mount: (args) => {
        fs.cpSync(tree, args[3], { recursive: true });
        return ok();
      },
      umount: (args) => {
        if (args[0] !== "-l") return { code: 32, stdout: "", stderr: "target is busy" };
        for (const entry of fs.readdirSync(args[1])) fs.rmSync(path.join(args[1], entry), { recursive: true });
        return ok();
      },
    });
    await readInstanceMetadata({ runner, network: false, procMounts: noMounts, tmpDir: tmp });
    assert.deepEqual(
      calls.filter((c) => c.command === "umount").map((c) => c.args[0]),
      [calls.find((c) => c.command === "mount")!.args[3], "-l"],
    );
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  it("exit code 2 from blkid (nothing found) is quiet", async () => {
    const { runner } = fakeRunner({ blkid: noMatch });
    const logs: string[] = [];
    assert.deepEqual(await findConfigDriveDevices({ runner, log: (m) => logs.push(m) }), []);
    assert.deepEqual(logs, []);
  });
});
