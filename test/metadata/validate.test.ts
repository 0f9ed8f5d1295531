import assert from "node:assert/strict";
import { MetadataError, parseMetadataDocument } from "../../provider/metadata";
import { SAMPLE_METADATA } from "../../emulator/metadata-service";

const where = "http://127.0.0.1:1/openstack/latest/meta_data.json";

function invalid(text: string, pattern: RegExp): void {
  assert.throws(
    () => parseMetadataDocument(text, where),
    (err: unknown) => {
      assert.ok(err instanceof MetadataError);
      assert.equal(err.kind, "invalid");
      assert.equal(err.location, where);
      assert.ok(err.message.includes(where), err.message);
      assert.match(err.message, pattern);
      return true;
    },
  );
}

describe("metadata: meta_data.json validation", () => {
  it("maps every spec field to camelCase and keeps the raw document", () => {
    const { metadata, raw } = parseMetadataDocument(JSON.stringify({ ...SAMPLE_METADATA, dedicated_cpus: [2, 3], extra: 1 }), where);
    assert.deepEqual(metadata, {
      uuid: SAMPLE_METADATA.uuid,
      name: "backup-node-1",
      hostname: "backup-node-1.novalocal",
      launchIndex: 0,
      availabilityZone: "nova",
      projectId: SAMPLE_METADATA.project_id,
      publicKeys: SAMPLE_METADATA.public_keys,
      sshKeys: [SAMPLE_METADATA.public_keys.mykey],
      keys: SAMPLE_METADATA.keys,
      devices: [],
      dedicatedCpus: [2, 3],
      meta: { role: "backup", portal_consumer: "consumer-42" },
    });
    assert.equal(raw.extra, 1);
    assert.equal(raw.launch_index, 0);
  });

  it("a minimal document (uuid only, as an old Nova version) gets defaults", () => {
    const { metadata } = parseMetadataDocument('{"uuid":"u-1"}', where);
    assert.deepEqual(metadata, {
      uuid: "u-1",
      name: "",
      hostname: "",
      publicKeys: {},
      sshKeys: [],
      keys: [],
      devices: [],
      dedicatedCpus: [],
      meta: {},
    });
  });

  it("meta absent and meta null both mean no custom metadata", () => {
    assert.deepEqual(parseMetadataDocument('{"uuid":"u"}', where).metadata.meta, {});
    assert.deepEqual(parseMetadataDocument('{"uuid":"u","meta":null}', where).metadata.meta, {});
  });

  it("rejects what is not a JSON object with a string uuid", () => {
    invalid("<html>502 Bad Gateway</html>", /not JSON \(28 bytes\)/);
    invalid("", /not JSON/);
    invalid("[1,2]", /expected a JSON object, got an array/);
    invalid("null", /expected a JSON object, got null/);
    invalid('"uuid"', /expected a JSON object, got a string/);
    invalid('{"name":"x"}', /"uuid" is missing/);
    invalid('{"uuid":42}', /"uuid" must be a non-empty string, got a number/);
    invalid('{"uuid":""}', /"uuid" must be a non-empty string, got an empty string/);
  });

  it("rejects meta values that are neither strings nor numbers nor booleans, naming the key", () => {
    invalid('{"uuid":"u","meta":{"a":"1","list":[2]}}', /"meta\.list" must be a string \(or a number or boolean\), got an array/);
    invalid('{"uuid":"u","meta":{"a":null}}', /"meta\.a" must be a string \(or a number or boolean\), got null/);
    invalid('{"uuid":"u","meta":["a"]}', /"meta" must be an object of strings, got an array/);
  });

  it("rejects wrongly typed known fields", () => {
    invalid('{"uuid":"u","launch_index":"0"}', /"launch_index" must be an integer/);
    invalid('{"uuid":"u","launch_index":1.5}', /"launch_index" must be an integer/);
    invalid('{"uuid":"u","hostname":7}', /"hostname" must be a string/);
    invalid('{"uuid":"u","keys":[{"name":"k","type":"ssh"}]}', /"keys\[0\]\.data" must be a string/);
    invalid('{"uuid":"u","devices":{}}', /"devices" must be an array/);
    invalid('{"uuid":"u","public_keys":{"k":1}}', /"public_keys\.k" must be a string/);
  });

  it("tolerates a UTF-8 byte order mark", () => {
    assert.equal(parseMetadataDocument('\uFEFF{"uuid":"u"}', where).metadata.uuid, "u");
  });
});
