import * as zlib from "zlib";
import assert from "node:assert/strict";
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_TIMEOUT_MS,
  fetchUserData,
  listMetadataVersions,
  MetadataError,
  readInstanceMetadata,
  readNetworkMetadata,
} from "../../provider/metadata";
import { MetadataService, SAMPLE_METADATA, startMetadataService } from "../../emulator/metadata-service";

// Fast retries for tests; no block-device discovery on the test machine.
const fast = { backoffMs: 10, discoverConfigDrive: false } as const;

async function rejectsWith(promise: Promise<unknown>, check: (err: MetadataError) => void): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof MetadataError, `expected a MetadataError, got ${String(err)}`);
    check(err);
    return true;
  });
}

describe("metadata: network source", () => {
  let svc: MetadataService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it("reads meta_data.json and user_data from latest", async () => {
    svc = await startMetadataService({ userData: "#cloud-config\npackages: [curl]\n" });
    const found = await readInstanceMetadata({ url: svc.url, ...fast });
    assert.equal(found.source, "network");
    assert.equal(found.location, `${svc.url}/openstack/latest/meta_data.json`);
    assert.equal(found.metadata.uuid, SAMPLE_METADATA.uuid);
    assert.deepEqual(found.metadata.meta, SAMPLE_METADATA.meta);
    assert.deepEqual(found.raw, SAMPLE_METADATA);
    assert.equal(found.userData, "#cloud-config\npackages: [curl]\n");
    assert.deepEqual(svc.requests, [
      { method: "GET", path: "/openstack/latest/meta_data.json", status: 200 },
      { method: "GET", path: "/openstack/latest/user_data", status: 200 },
    ]);
  });

  it("latest missing: reads the versions list and the newest known version, user_data from there too", async () => {
    const doc = JSON.stringify({ ...SAMPLE_METADATA, name: "ocata" });
    svc = await startMetadataService({
      versions: ["2012-08-10", "2017-02-22", "2099-01-01", "latest"],
      files: {
        "2012-08-10/meta_data.json": JSON.stringify(SAMPLE_METADATA),
        "2017-02-22/meta_data.json": doc,
        "2017-02-22/user_data": "ud",
      },
    });
    const lines: string[] = [];
    const found = await readNetworkMetadata({ url: svc.url, ...fast, log: (l) => lines.push(l) });
    assert.equal(found.version, "2017-02-22");
    assert.equal(found.metadata.name, "ocata");
    assert.equal(found.userData, "ud");
    assert.equal(found.location, `${svc.url}/openstack/2017-02-22/meta_data.json`);
    assert.deepEqual(
      svc.requests.map((r) => `${r.path} ${r.status}`),
      [
        "/openstack/latest/meta_data.json 404",
        "/openstack 200",
        "/openstack/2017-02-22/meta_data.json 200",
        "/openstack/2017-02-22/user_data 200",
      ],
    );
    assert.ok(
      lines.some((l) => /using version 2017-02-22, the newest the service lists that the reader knows/.test(l)),
      lines.join("\n"),
    );
  });

  it("latest missing and no known version listed, or a version given: the 404 stands", async () => {
    svc = await startMetadataService({
      versions: ["2099-01-01", "latest"],
      files: { "2099-01-01/meta_data.json": JSON.stringify(SAMPLE_METADATA) },
    });
    await rejectsWith(readNetworkMetadata({ url: svc.url, ...fast }), (err) => {
      assert.equal(err.kind, "http");
      assert.equal(err.status, 404);
      assert.match(
        err.message,
        /latest\/meta_data\.json answered HTTP 404.*the versions list offers 2 versions, none of them one the reader knows/,
      );
    });
    await svc.close();
    svc = await startMetadataService({
      versions: ["2017-02-22", "latest"],
      files: { "2017-02-22/meta_data.json": JSON.stringify(SAMPLE_METADATA) },
    });
    await rejectsWith(readNetworkMetadata({ url: svc.url, ...fast, version: "latest" }), (err) => assert.equal(err.status, 404));
    assert.equal(svc.requests.length, 1, "an explicit version has no fallback");
  });

  it("honours platform and version, and a trailing slash on the URL", async () => {
    svc = await startMetadataService({ platform: "acme", userData: "x" });
    const found = await readNetworkMetadata({ url: `${svc.url}/`, platform: "acme", version: "2018-08-27" });
    assert.equal(found.location, `${svc.url}/acme/2018-08-27/meta_data.json`);
    assert.equal(found.userData, "x");
  });

  it("lists the versions the service offers", async () => {
    svc = await startMetadataService();
    const versions = await listMetadataVersions({ url: svc.url });
    assert.ok(versions.includes("2018-08-27") && versions.includes("latest"), versions.join(","));
  });

  it("a 404 user_data is null, after a single request", async () => {
    svc = await startMetadataService({ userData: null });
    const found = await readInstanceMetadata({ url: svc.url, ...fast });
    assert.equal(found.userData, null);
    assert.equal(svc.requests.filter((r) => r.path.endsWith("/user_data")).length, 1);
    assert.equal(svc.requests.length, 2);
  });

  it("userData: false does not request user_data", async () => {
    svc = await startMetadataService({ userData: "secret" });
    const found = await readNetworkMetadata({ url: svc.url, userData: false });
    assert.equal(found.userData, null);
    assert.equal(svc.requests.length, 1);
  });

  it("503 twice then 200 succeeds", async () => {
    svc = await startMetadataService({ failFirst: { count: 2, status: 503 } });
    const found = await readInstanceMetadata({ url: svc.url, ...fast });
    assert.equal(found.metadata.uuid, SAMPLE_METADATA.uuid);
    assert.deepEqual(
      svc.requests.map((r) => r.status),
      [503, 503, 200, 404],
    );
  });

  it("a 404 meta_data.json is not retried", async () => {
    svc = await startMetadataService();
    await rejectsWith(readInstanceMetadata({ url: svc.url, version: "1999-01-01", ...fast }), (err) => {
      assert.equal(err.kind, "http");
      assert.equal(err.status, 404);
      assert.equal(err.attempts, 1);
      assert.match(err.message, /1999-01-01\/meta_data\.json answered HTTP 404.*not retried/);
    });
    assert.equal(svc.requests.length, 1);
  });

  it("other 4xx (403) stop at once", async () => {
    svc = await startMetadataService({ failFirst: { count: 5, status: 403 } });
    await rejectsWith(readInstanceMetadata({ url: svc.url, ...fast }), (err) => assert.equal(err.status, 403));
    assert.equal(svc.requests.length, 1);
  });

  it("gzip user_data is decompressed, as cloud-init does", async () => {
    const script = "#!/bin/sh\necho from gzip\n";
    svc = await startMetadataService({ userData: zlib.gzipSync(script) });
    assert.equal(await fetchUserData({ url: svc.url, ...fast }), script);
  });

  it("500 exhausts the attempts and reports them", async () => {
    svc = await startMetadataService({ failFirst: { count: 100, status: 500 } });
    await rejectsWith(readInstanceMetadata({ url: svc.url, ...fast }), (err) => {
      assert.equal(err.kind, "http");
      assert.equal(err.status, 500);
      assert.equal(err.attempts, DEFAULT_ATTEMPTS, "cloud-init's: the first and 5 retries");
      assert.match(err.message, new RegExp(`meta_data\\.json answered HTTP 500.*${DEFAULT_ATTEMPTS} attempts made`));
      assert.match(err.message, /the versions list could not be read either/);
    });
    // latest/meta_data.json, then the versions list (to walk the dated versions): each to exhaustion.
    assert.equal(svc.requests.length, 2 * DEFAULT_ATTEMPTS);
  });

  it("attempts is configurable", async () => {
    svc = await startMetadataService({ failFirst: { count: 100, status: 502 } });
    await rejectsWith(readInstanceMetadata({ url: svc.url, attempts: 5, ...fast }), (err) => assert.equal(err.attempts, 5));
    assert.equal(svc.requests.length, 2 * 5, "latest, then the versions list");
  });

  it("a delayed server with a short timeout: a timeout error after bounded attempts", async () => {
    svc = await startMetadataService({ delayMs: 5000 });
    const started = Date.now();
    await rejectsWith(readInstanceMetadata({ url: svc.url, timeoutMs: 100, attempts: 2, ...fast }), (err) => {
      assert.equal(err.kind, "timeout");
      assert.equal(err.attempts, 2);
      assert.match(err.message, /timed out after 100 ms, 2 attempts made/);
    });
    const elapsed = Date.now() - started;
    // Two timeouts of 100 ms; without them a single answer would take the server's 5 s.
    assert.ok(elapsed >= 200 && elapsed < 5000, `took ${elapsed} ms`);
    assert.equal(svc.requests.length, 2);
  });

  it("a refused connection is retried, then reported", async () => {
    const gone = await startMetadataService();
    const url = gone.url;
    await gone.close();
    await rejectsWith(readInstanceMetadata({ url, ...fast }), (err) => {
      assert.equal(err.kind, "connection");
      assert.equal(err.attempts, DEFAULT_ATTEMPTS);
      assert.match(err.message, /connection failed \(ECONNREFUSED\)/);
    });
  });

  it("a redirect is an HTTP error, not followed and not retried", async () => {
    svc = await startMetadataService({ redirectTo: "http://127.0.0.1:1/elsewhere" });
    await rejectsWith(readInstanceMetadata({ url: svc.url, ...fast }), (err) => {
      assert.equal(err.kind, "http");
      assert.equal(err.status, 302);
      assert.equal(err.attempts, 1);
      assert.match(
        err.message,
        /answered HTTP 302 Found \(a redirect to http:\/\/127\.0\.0\.1:1\/elsewhere; redirects are not followed\); not retried/,
      );
    });
    assert.deepEqual(svc.requests, [{ method: "GET", path: "/openstack/latest/meta_data.json", status: 302 }]);
  });

  it("honours Retry-After on 503, capped by maxRetryAfterMs", async () => {
    svc = await startMetadataService({ failFirst: { count: 1, status: 503, retryAfter: 30 } });
    const started = Date.now();
    await readInstanceMetadata({ url: svc.url, maxRetryAfterMs: 150, ...fast });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 140 && elapsed < 2000, `took ${elapsed} ms`);
  });

  it("a Retry-After of 3600 is honoured only within the overall deadline: no wait that ends beyond it, at once", async () => {
    // The cap alone must not be what saves the boot: it is raised far above the deadline here.
    svc = await startMetadataService({ failFirst: { count: 100, status: 503, retryAfter: 3600 } });
    const started = Date.now();
    await rejectsWith(readNetworkMetadata({ url: svc.url, maxRetryAfterMs: 10_000_000, deadlineMs: 2000, ...fast }), (err) => {
      assert.equal(err.kind, "http");
      assert.equal(err.status, 503);
      assert.match(err.message, /Retry-After of 3600 s reaches beyond the overall deadline of 2000 ms \(--deadline\)/);
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 1500, `gave up at once, not at the deadline: took ${elapsed} ms`);
    assert.equal(svc.requests.length, 1, "no second attempt");
  });

  it("the overall deadline bounds every attempt of a slow service, whatever --timeout and --attempts allow", async () => {
    svc = await startMetadataService({ delayMs: 5000 });
    const started = Date.now();
    await rejectsWith(readNetworkMetadata({ url: svc.url, timeoutMs: 10_000, attempts: 6, deadlineMs: 600, ...fast }), (err) => {
      assert.equal(err.kind, "timeout");
      assert.match(err.message, /deadline of 600 ms/);
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 550 && elapsed < 2500, `took ${elapsed} ms`);
  });

  it("the default deadline is twice cloud-init's worst case for one document (6 × 10 s + 5 × 1 s)", () => {
    assert.equal(DEFAULT_DEADLINE_MS, 2 * (DEFAULT_ATTEMPTS * DEFAULT_TIMEOUT_MS + (DEFAULT_ATTEMPTS - 1) * DEFAULT_BACKOFF_MS));
    assert.equal(DEFAULT_DEADLINE_MS, 130_000);
  });

  it("user_data that times out is absent, with a warning; meta_data.json alone is required", async () => {
    svc = await startMetadataService({ paths: { "latest/user_data": { delayMs: 3000 } }, userData: "never seen" });
    const found = await readNetworkMetadata({ url: svc.url, timeoutMs: 150, attempts: 2, ...fast });
    assert.equal(found.userData, null);
    assert.equal(found.metadata.uuid, SAMPLE_METADATA.uuid);
    assert.equal(found.warnings.length, 1);
    assert.match(found.warnings[0], /^user_data treated as absent .*user_data timed out after 150 ms, 2 attempts made/);
  });

  it("user_data whose gzip is broken is still an error: the data is there and wrong", async () => {
    svc = await startMetadataService({ userData: Buffer.from([0x1f, 0x8b, 1, 2, 3]) });
    await rejectsWith(readNetworkMetadata({ url: svc.url, ...fast }), (err) => assert.equal(err.kind, "invalid"));
  });

  it("honours Retry-After on 429 below the cap", async () => {
    svc = await startMetadataService({ failFirst: { count: 1, status: 429, retryAfter: 1 } });
    const started = Date.now();
    await readInstanceMetadata({ url: svc.url, ...fast });
    assert.ok(Date.now() - started >= 950, "waited about a second");
    assert.deepEqual(
      svc.requests.map((r) => r.status),
      [429, 200, 404],
    );
  });

  it("broken documents name the URL: not JSON, an array, no uuid", async () => {
    for (const [body, pattern] of [
      ["{not json", /not JSON/],
      ["[]", /expected a JSON object, got an array/],
      ['{"name":"x"}', /"uuid" is missing/],
    ] as const) {
      svc = await startMetadataService({ metadata: body });
      const url = `${svc.url}/openstack/latest/meta_data.json`;
      await rejectsWith(readInstanceMetadata({ url: svc.url, ...fast }), (err) => {
        assert.equal(err.kind, "invalid");
        assert.equal(err.location, url);
        assert.ok(err.message.includes(url));
        assert.match(err.message, pattern);
        assert.match(err.message, /no dated version read either/);
      });
      // Not retried; each listed known version tried once after latest, newest first.
      assert.deepEqual(
        svc.requests.map((r) => r.path),
        [
          "/openstack/latest/meta_data.json",
          "/openstack",
          ...["2018-08-27", "2016-06-30", "2015-10-15", "2013-04-04", "2012-08-10"].map((v) => `/openstack/${v}/meta_data.json`),
        ],
      );
      await svc.close();
      svc = undefined;
    }
  });

  it("absent and null meta over the network", async () => {
    const { meta: _omit, ...withoutMeta } = SAMPLE_METADATA;
    for (const doc of [withoutMeta, { ...withoutMeta, meta: null }]) {
      svc = await startMetadataService({ metadata: doc });
      const found = await readInstanceMetadata({ url: svc.url, ...fast });
      assert.deepEqual(found.metadata.meta, {});
      await svc.close();
      svc = undefined;
    }
  });

  it("rejects bad options before any request", async () => {
    await assert.rejects(fetchUserData({ url: "ftp://x" }), /http\(s\) URL/);
    await assert.rejects(fetchUserData({ platform: "a/b" }), /single non-empty path segment/);
    await assert.rejects(fetchUserData({ timeoutMs: 0 }), /timeoutMs/);
  });
});
