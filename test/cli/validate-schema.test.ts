// The stack files' JSON Schema as a validator reports it (ajv, as a CI job or a user runs it): a misspelt
// `backup-portal:` key fails at that key on the schema that says it is no key of the namespace, not with
// "must have required property 'secure'"; a known key of the wrong type fails with its type's message only; a
// secret stays a secret. Compiled in ajv's default (strict) mode, as a user compiles it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv, { ErrorObject } from "ajv";
import { stackFileSchema } from "../../provider/stack-config/schema";

const SCHEMA_FILE = join(__dirname, "..", "..", "stacks", "tenants.schema.json");

/** The errors ajv gives for a stack file's config; [] when it is valid. */
function errors(config: Record<string, unknown>): ErrorObject[] {
  const validate = new Ajv({ allErrors: true, logger: false }).compile(JSON.parse(readFileSync(SCHEMA_FILE, "utf8")));
  return validate({ config: { "backup-portal:tenants": {}, ...config } }) ? [] : (validate.errors ?? []);
}

const SECURE_MESSAGE = "must have required property 'secure'";

describe("the stack file schema's messages, through ajv", () => {
  it("the committed schema is the generated one (what these messages come from)", () => {
    assert.deepEqual(JSON.parse(readFileSync(SCHEMA_FILE, "utf8")), stackFileSchema());
  });

  it("a misspelt namespace key fails at that key, on notAKeyOfBackupPortal, whatever its value; never asks for `secure`", () => {
    for (const [key, value] of [
      ["backup-portal:tennants", { acme: { registrationNumber: "1", timeZone: "UTC" } }],
      ["backup-portal:protectBusinessUnit", false],
      ["backup-portal:rootBusinesUnitId", 1000],
      ["tennants", { acme: {} }],
    ] as const) {
      const found = errors({ [key]: value });
      assert.ok(found.length > 0, `${key} is refused`);
      assert.deepEqual(new Set(found.map((e) => e.instancePath)), new Set([`/config/${key}`]), `${key}: every error at the key`);
      assert.ok(
        found.some((e) => e.schemaPath === "#/definitions/notAKeyOfBackupPortal/not"),
        `${key}: ${new Ajv().errorsText(found)}`,
      );
      assert.ok(!found.some((e) => e.message === SECURE_MESSAGE || e.keyword === "required"), `${key}: ${new Ajv().errorsText(found)}`);
    }
  });

  it("the schema that refuses it says why, for an editor's hover and a reader of the error's schemaPath", () => {
    const schema = stackFileSchema() as { definitions: Record<string, { description: string }> };
    assert.match(
      schema.definitions.notAKeyOfBackupPortal.description,
      /^not a key of backup-portal: \(a typo\? `backup-portal validate` names the key meant\)/,
    );
  });

  it("a known key of the wrong type gets its type's message only", () => {
    const root = errors({ "backup-portal:rootBusinessUnitId": "abc" });
    assert.ok(
      root.some((e) => e.instancePath === "/config/backup-portal:rootBusinessUnitId" && e.message === "must be integer"),
      new Ajv().errorsText(root),
    );
    assert.ok(!root.some((e) => e.message === SECURE_MESSAGE), new Ajv().errorsText(root));
    const flag = errors({ "backup-portal:protectBusinessUnits": "yes" });
    assert.deepEqual(
      flag.filter((e) => e.keyword === "type").map((e) => [e.instancePath, e.message]),
      [["/config/backup-portal:protectBusinessUnits", "must be boolean"]],
    );
  });

  it("secrets: a secure value is valid at a known key and at a key a block names; a broken one is named as a secret", () => {
    assert.deepEqual(errors({ "backup-portal:url": { secure: "v1:abc" }, "backup-portal:web01Password": { secure: "v1:def" } }), []);
    const broken = errors({ "backup-portal:web01Password": { secure: 1 } });
    assert.ok(
      broken.some((e) => e.instancePath === "/config/backup-portal:web01Password/secure" && e.message === "must be string"),
      new Ajv().errorsText(broken),
    );
    const notSecure = errors({ "backup-portal:url": { sekure: "v1:abc" } });
    assert.ok(
      notSecure.some((e) => e.message === SECURE_MESSAGE),
      "a map at a key that may be a secret: the secret's shape is what it lacks",
    );
    const plain = errors({ "backup-portal:password": "hunter2" });
    assert.ok(
      plain.some((e) => e.instancePath === "/config/backup-portal:password" && e.message === "must be object"),
      new Ajv().errorsText(plain),
    );
  });
});
