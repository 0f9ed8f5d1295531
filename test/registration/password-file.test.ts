// The node password file of `backup-portal register`: it moves into place only once the portal accepted the
// password, a failed write after that says what to run, and a rotation without a file is refused up front.
// The portal emulator and the metadata service over real HTTP on 127.0.0.1, files in temp dirs.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { hashSecret } from "../../emulator/util";
import { registerInstance, RegistrationError } from "../../provider/registration";
import { envFor, writes } from "../support/portal";
import { blockWhenTempAppears, instanceDocument, modeOf, Outcome, register, registrationSuite, UUID } from "./helpers";

const BUNIT = 2;
const META = { backup_bunit: String(BUNIT) };
const PASSWORD_PATH = "/password";

describe("registration: the node password file", function () {
  const suite = registrationSuite();
  const files = (): string[] => ["--option-file", suite.optionFile, "--password-file", suite.passwordFile, "--portal-timeout", "3"];
  const run = (args: string[]): Promise<Outcome> => register(args, { doc: instanceDocument(META), env: envFor(suite.emu, "tenant") });
  const consumer = () => suite.emu.state().consumers.find((c) => c.tags?.includes(`instance-uuid:${UUID}`));
  const node = () => suite.emu.state().nodes.find((n) => n.consumerId === consumer()?.id);
  /** Every entry of the password file's directory: no temp file may stay behind. */
  const entries = () => (fs.existsSync(path.dirname(suite.passwordFile)) ? fs.readdirSync(path.dirname(suite.passwordFile)).sort() : []);

  describe("--rotate-password without --password-file", () => {
    it("is refused as bad arguments (exit 2) before any request, metadata or portal", async () => {
      const outcome = await run(["--option-file", suite.optionFile, "--rotate-password"]);
      assert.equal(outcome.code, 2, outcome.stderr);
      assert.match(outcome.stderr, /--rotate-password needs --password-file <path>/);
      assert.equal(outcome.metadataRequests, 0);
      assert.deepEqual(suite.emu.requests(), []);
    });

    it("the API refuses it too (kind usage), before reading anything", async () => {
      const err = await registerInstance({
        rotatePassword: true,
        metadata: { url: "http://127.0.0.1:9", discoverConfigDrive: false },
      }).catch((e: unknown) => e);
      assert.ok(err instanceof RegistrationError);
      assert.equal(err.kind, "usage");
      assert.match(err.message, /rotatePassword needs passwordFile/);
    });
  });

  describe("the portal refuses the password: the file stays exactly as it was", () => {
    it("a previous file stays byte-identical (content and mode), and no temp file is left", async () => {
      assert.equal((await run(files())).code, 0);
      const before = fs.readFileSync(suite.passwordFile);
      const hashBefore = node()!.passwordHash;
      const listing = entries();
      suite.emu.setFaults({
        errorRate: 1,
        statuses: [500],
        match: { method: "POST", pathPrefix: `/v1/bunits/${BUNIT}/consumers/${consumer()!.id}/node${PASSWORD_PATH}` },
      });
      const rotated = await run([...files(), "--rotate-password"]);
      assert.equal(rotated.code, 1, rotated.stderr);
      assert.deepEqual(fs.readFileSync(suite.passwordFile), before);
      assert.equal(modeOf(suite.passwordFile), 0o600);
      assert.deepEqual(entries(), listing);
      assert.equal(node()!.passwordHash, hashBefore, "the portal kept its password");
      assert.equal(node()!.passwordHash, hashSecret(before.toString("utf8"), `node-${node()!.id}`), "file and portal still agree");
    });

    it("no file before: still none after (and no temp file)", async () => {
      // The new consumer is the emulator's 4th (seed holds 1 to 3): creation passes, the password is refused.
      suite.emu.setFaults({
        errorRate: 1,
        statuses: [500],
        match: { method: "POST", pathPrefix: `/v1/bunits/${BUNIT}/consumers/4/node${PASSWORD_PATH}` },
      });
      const outcome = await run(files());
      assert.equal(outcome.code, 1, outcome.stderr);
      assert.match(outcome.stderr, /created consumer 4, created node/);
      assert.ok(!fs.existsSync(suite.passwordFile), "no password file");
      assert.deepEqual(
        entries().filter((e) => e !== "node-password"),
        [],
        "no temp file left",
      );
      assert.equal(node()!.passwordHash, undefined, "the portal holds no password");
    });
  });

  it("the file cannot be moved into place after the portal accepted: the message says what to run", async () => {
    // A directory where the file should go, put there after the flag check and while the portal (delayed) takes
    // the password: the temp file beside it is written, the rename onto it fails.
    suite.emu.setFaults({ latencyMs: 800, match: { method: "POST", path: `/v1/bunits/${BUNIT}/consumers/4/node/password` } });
    const [outcome] = await Promise.all([run(files()), blockWhenTempAppears(suite.passwordFile)]);
    suite.emu.clearFaults();
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.match(
      outcome.stderr,
      new RegExp(
        `the node password was set on the portal but the password file ${suite.passwordFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} could not be written .*` +
          `run \`backup-portal register --rotate-password --password-file ${suite.passwordFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\` once it can be written`,
      ),
    );
    assert.ok(node()!.passwordHash, "the portal took a password");
    assert.deepEqual(entries(), ["node-password"], "only the blocking directory: the temp file is removed");
    assert.ok(writes(suite.emu).some((w) => w.path.endsWith("/node/password")));
    // The command it names works once the path is free.
    fs.rmSync(suite.passwordFile, { recursive: true });
    const again = await run([...files(), "--rotate-password"]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(node()!.passwordHash, hashSecret(fs.readFileSync(suite.passwordFile, "utf8"), `node-${node()!.id}`));
  });
});
