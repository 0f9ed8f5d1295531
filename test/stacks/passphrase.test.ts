// The local stack's committed encryptionsalt: made for the passphrase `local` exactly as the CLI's passphrase
// secrets provider makes one, so `pulumi stack select local --create` (npm run local) finds it and writes nothing.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import yaml from "js-yaml";
import { passphraseState, unlocks } from "./passphrase";

// Each check derives a key with 1,000,000 PBKDF2 rounds (about a second on the shared machine).
const SLOW = 60_000;

describe("the local stack's passphrase salt", function () {
  this.timeout(SLOW);

  it("reads a state the CLI made (pulumi/pulumi's own test vector, passphrase `password`)", () => {
    // pkg/secrets/passphrase/manager_test.go at 1b59498: the state its tests unlock with "password".
    const cliMade = "v1:fozI5u6B030=:v1:F+6ZduKKd8G0/V7L:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ==";
    assert.equal(unlocks(cliMade, "password"), true);
    assert.equal(unlocks(cliMade, "password123"), false);
  });

  it("makes states of the CLI's shape that unlock with their passphrase only", () => {
    const state = passphraseState("local", Buffer.alloc(8, 7), Buffer.alloc(12, 9));
    assert.match(state, /^v1:[A-Za-z0-9+/]{11}=:v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/]{30}==$/);
    assert.equal(unlocks(state, "local"), true);
    assert.equal(unlocks(state, "locals"), false);
    assert.throws(() => unlocks("v1:c2FsdA==:bm9uY2U=", "local"), /not a v1 passphrase state/);
  });

  it("stacks/Pulumi.local.yaml holds an encryptionsalt for the passphrase `local`, the one npm run local uses", () => {
    const file = path.join(__dirname, "..", "..", "stacks", "Pulumi.local.yaml");
    const doc = yaml.load(fs.readFileSync(file, "utf8")) as { encryptionsalt?: string };
    assert.equal(typeof doc.encryptionsalt, "string", "committed, so the CLI does not add one");
    assert.equal(Buffer.from(doc.encryptionsalt!.split(":")[1], "base64").length, 8, "an 8-byte salt, as the CLI makes");
    assert.equal(unlocks(doc.encryptionsalt!, "local"), true);
    const script = fs.readFileSync(path.join(__dirname, "..", "..", "scripts", "local-up.sh"), "utf8");
    assert.match(script, /^export PULUMI_CONFIG_PASSPHRASE=local$/m);
  });
});
