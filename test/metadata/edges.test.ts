// The metadata reader at its edges: each status cloud-init retries (and only those), an https service, the
// attempts' lower bound, a document exactly at its size cap, and public_keys in each of the forms cloud-init's
// normalize_pubkey_data takes, blank entries included.
import assert from "node:assert/strict";
import { MAX_METADATA_BYTES, parseMetadataDocument, readNetworkMetadata, RETRYABLE_STATUSES } from "../../provider/metadata";
import { SAMPLE_METADATA, startMetadataService } from "../../emulator/metadata-service";

const fast = { backoffMs: 1, userData: false } as const;

describe("metadata: the reader's edges", function () {
  this.timeout(60_000);

  it("retries exactly the statuses that can succeed on retry: 408, 429, 500, 502, 503, 504", async () => {
    // cloud-init's OpenStack helper retries these (and connection errors and timeouts), nothing else.
    const retriedByCloudInit = [408, 429, 500, 502, 503, 504];
    assert.deepEqual([...RETRYABLE_STATUSES].sort(), retriedByCloudInit);
    for (const status of [408, 429, 500, 502, 503, 504, 400, 401, 410, 501, 505]) {
      const svc = await startMetadataService({ failFirst: { count: 1, status } });
      try {
        // A status not retried either ends the read or, on latest/, sends it to the versions list (cloud-init's fallback).
        const read = await readNetworkMetadata({ url: svc.url, ...fast }).catch((e: Error) => e);
        if (retriedByCloudInit.includes(status))
          assert.equal((read as { metadata: { uuid: string } }).metadata?.uuid, SAMPLE_METADATA.uuid);
        const [first, second] = svc.requests;
        assert.equal(first.status, status);
        const retried = second?.path === first.path;
        assert.equal(
          retried,
          retriedByCloudInit.includes(status),
          `${status}: ${svc.requests.map((r) => `${r.status} ${r.path}`).join(", ")}`,
        );
      } finally {
        await svc.close();
      }
    }
  });

  it("takes an https service URL (the option check refuses only other schemes) and at least one attempt", async () => {
    // Nothing listens on port 1: the https URL passes the option check and fails as a connection, once.
    await assert.rejects(
      readNetworkMetadata({ url: "https://127.0.0.1:1", attempts: 1, timeoutMs: 2000, userData: false }),
      (err: Error) => {
        assert.match(err.message, /GET https:\/\/127\.0\.0\.1:1\/openstack\/latest\/meta_data\.json connection failed .*1 attempt made/);
        return true;
      },
    );
    for (const attempts of [0, 0.5, -1])
      await assert.rejects(
        readNetworkMetadata({ url: "http://127.0.0.1:1", attempts }),
        /attempts must be a number >= 1/,
        String(attempts),
      );
  });

  it("a meta_data.json of exactly the cap is read; one byte more is refused", async () => {
    const doc = (size: number) => {
      const base = JSON.stringify({ ...SAMPLE_METADATA, pad: "" });
      return JSON.stringify({ ...SAMPLE_METADATA, pad: "x".repeat(size - base.length) });
    };
    const at = await startMetadataService({ metadata: doc(MAX_METADATA_BYTES) });
    try {
      assert.equal((await readNetworkMetadata({ url: at.url, ...fast })).metadata.uuid, SAMPLE_METADATA.uuid);
    } finally {
      await at.close();
    }
    const over = await startMetadataService({ metadata: doc(MAX_METADATA_BYTES + 1) });
    try {
      await assert.rejects(readNetworkMetadata({ url: over.url, ...fast }), /larger than|exceeds|too large/i);
    } finally {
      await over.close();
    }
  });

  it("public_keys: blank lines and entries are dropped from the key list; a name's list is kept joined", () => {
    const parse = (public_keys: unknown) => parseMetadataDocument(JSON.stringify({ uuid: "u", public_keys }), "test").metadata;
    assert.deepEqual(parse("ssh-ed25519 A\n\nssh-rsa B\r\n").sshKeys, ["ssh-ed25519 A", "ssh-rsa B"]);
    assert.deepEqual(parse(["ssh-ed25519 A", "", ["ssh-rsa B", ""]]).sshKeys, ["ssh-ed25519 A", "ssh-rsa B"]);
    const byName = parse({ one: "ssh-ed25519 A", two: ["ssh-rsa B", "", "ssh-rsa C"], none: "" });
    assert.deepEqual(byName.sshKeys, ["ssh-ed25519 A", "ssh-rsa B", "ssh-rsa C"]);
    assert.deepEqual(byName.publicKeys, { one: "ssh-ed25519 A", two: "ssh-rsa B\n\nssh-rsa C", none: "" });
  });
});
