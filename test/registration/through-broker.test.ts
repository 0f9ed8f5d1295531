// registerThroughBroker (the API behind `register --broker`) in process, against a stand-in broker on 127.0.0.1 that
// records what it is sent and answers what a test needs (results, refusals, errors of each kind, broken bodies, no
// answer); test/registration/broker.test.ts runs the real broker. The metadata service emulator; files in temp dirs.
import assert from "node:assert/strict";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { MetadataService, startMetadataService } from "../../emulator/metadata-service";
import { BrokerRegisterOptions, registerThroughBroker, RegistrationError, RegistrationResult } from "../../provider/registration";
import { instanceDocument, removeTempDirs, tempDir, TSM_NAME, UUID } from "./helpers";

const BUNIT = 2;
const KEPT_NOWHERE =
  "the node password was set on the portal but kept nowhere (no --password-file): the backup client cannot log in " +
  "until you run again with --rotate-password --password-file <path>";

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A stand-in broker: records each request and answers `reply(body)` (status and raw text). */
async function standIn(reply: (body: Record<string, unknown>) => { status: number; text: string }): Promise<{
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      const { status, text } = reply(body);
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(text);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function resultOf(extra: Partial<RegistrationResult> = {}): RegistrationResult {
  return {
    status: "registered",
    instance: { uuid: UUID, name: "web01", source: "network", location: "x" },
    businessUnit: { id: BUNIT },
    consumerId: 4,
    nodeId: 4,
    tsmName: TSM_NAME,
    actions: ["created consumer 4", "created node", "set node password", `activated as ${TSM_NAME}`],
    warnings: [],
    credentialSources: {},
    passwordSet: true,
    server: { name: "SP01", address: "sp01.backup.example", port: 1500 },
    ...extra,
  };
}

describe("registration: registerThroughBroker (in process)", function () {
  let svc: MetadataService;
  let dir: string;
  let passwordFile: string;
  let optionFile: string;

  before(async () => {
    svc = await startMetadataService({ metadata: instanceDocument({ backup_bunit: String(BUNIT) }) });
  });
  after(async () => {
    await svc.close();
    removeTempDirs();
  });
  beforeEach(() => {
    dir = tempDir();
    passwordFile = path.join(dir, "secret", "node-password");
    optionFile = path.join(dir, "tsm", "dsm.opt");
  });

  const opts = (brokerUrl: string, extra: Partial<BrokerRegisterOptions> = {}): BrokerRegisterOptions => ({
    brokerUrl,
    token: "a-token",
    metadata: { url: svc.url, discoverConfigDrive: false },
    optionFile,
    passwordFile,
    cpuCount: () => 3,
    ...extra,
  });
  async function refused(o: BrokerRegisterOptions): Promise<RegistrationError> {
    try {
      await registerThroughBroker(o);
    } catch (err) {
      assert.ok(err instanceof RegistrationError, String(err));
      return err;
    }
    assert.fail("registerThroughBroker did not throw");
  }
  const secretDirEntries = () => (fs.existsSync(path.dirname(passwordFile)) ? fs.readdirSync(path.dirname(passwordFile)) : []);

  it("registers: each step said, the password file and option file written, no warning", async () => {
    const broker = await standIn(() => ({ status: 200, text: JSON.stringify({ result: resultOf() }) }));
    try {
      const lines: string[] = [];
      const result = await registerThroughBroker(opts(`${broker.url}//`, { progress: (l) => lines.push(l) }));
      assert.equal(lines[0], "reading instance metadata");
      assert.deepEqual(lines.slice(2), [`registering through the broker at ${broker.url}//`, `option file ${optionFile}: written`]);
      assert.equal(broker.seen[0].path, "/v1/register");
      assert.equal(result.status, "registered");
      assert.deepEqual(result.passwordFile, { path: passwordFile, written: true });
      assert.deepEqual(result.warnings, []);
      assert.deepEqual(secretDirEntries(), ["node-password"]);
      assert.match(fs.readFileSync(optionFile, "utf8"), new RegExp(`^NODENAME +${TSM_NAME}$`, "m"));

      const bare = await registerThroughBroker(opts(broker.url, { passwordFile: undefined, optionFile: false }));
      assert.deepEqual(bare.warnings, [KEPT_NOWHERE]);
      assert.equal(bare.optionFile, undefined);
    } finally {
      await broker.close();
    }
  });

  it("a dry run prepares no password file (not even a temp file) and writes no option file", async () => {
    const during: string[][] = [];
    const broker = await standIn(() => {
      during.push(secretDirEntries());
      return { status: 200, text: JSON.stringify({ result: resultOf({ status: "planned", passwordSet: false }) }) };
    });
    try {
      const result = await registerThroughBroker(opts(broker.url, { dryRun: true }));
      assert.equal(result.status, "planned");
      assert.deepEqual(during, [[]]);
      assert.deepEqual(result.warnings, []);
      assert.ok(!fs.existsSync(optionFile), "no option file in a dry run");
    } finally {
      await broker.close();
    }
  });

  it("refuses rotatePassword without a password file, and a bad key, before asking the broker", async () => {
    const broker = await standIn(() => ({ status: 500, text: "{}" }));
    try {
      const usage = await refused(opts(broker.url, { rotatePassword: true, passwordFile: undefined }));
      assert.equal(usage.kind, "usage");
      assert.equal(
        usage.message,
        "rotatePassword needs passwordFile: a new node password kept nowhere locks the backup client out; nothing was changed",
      );
      const bad = await startMetadataService({
        metadata: instanceDocument({ backup_bunit: String(BUNIT), backup_cpu_count: "many", backup_tsm_name: "no spaces" }),
      });
      try {
        const config = await refused(opts(broker.url, { metadata: { url: bad.url, discoverConfigDrive: false } }));
        assert.equal(config.kind, "configuration");
        assert.equal(config.problems.length, 2);
        assert.ok(config.problems.some((p) => p.startsWith("backup_cpu_count")));
        assert.ok(config.problems.some((p) => p.startsWith("backup_tsm_name")));
        assert.equal(config.message, `cannot register this instance; nothing was changed:\n  - ${config.problems.join("\n  - ")}`);
      } finally {
        await bad.close();
      }
      assert.deepEqual(broker.seen, []);
    } finally {
      await broker.close();
    }
  });

  it("sends the instance, its CPU count, a new node password and the flags, with the trimmed token", async () => {
    const broker = await standIn(() => ({ status: 200, text: JSON.stringify({ result: resultOf() }) }));
    try {
      await registerThroughBroker(opts(`${broker.url}/`, { token: " tok-1 \n", optionFile: false, cpuCount: undefined }));
      await registerThroughBroker(opts(broker.url, { token: "tok-2", optionFile: false, rotatePassword: true, dryRun: true }));
      const [first, second] = broker.seen;
      assert.equal(first.method, "POST");
      assert.equal(first.path, "/v1/register");
      assert.equal(first.headers.authorization, "Bearer tok-1");
      assert.equal(first.headers["content-type"], "application/json");
      const { nodePassword, ...rest } = first.body;
      assert.match(String(nodePassword), /^[A-Za-z0-9_\-+.]{32}$/);
      assert.deepEqual(rest, {
        instance: { uuid: UUID, name: "web01", hostname: "web01.novalocal", meta: { backup_bunit: String(BUNIT) } },
        cpuCount: os.cpus().length,
        rotatePassword: false,
        dryRun: false,
      });
      assert.equal(first.body.nodePassword === second.body.nodePassword, false, "a new password each run");
      assert.equal(second.body.rotatePassword, true);
      assert.equal(second.body.dryRun, true);
      assert.equal(second.body.cpuCount, 3);
      // The password file holds the password the broker was sent.
      assert.equal(fs.readFileSync(passwordFile, "utf8"), nodePassword);
    } finally {
      await broker.close();
    }
  });

  it("the broker's refusals and failures: the kind it names (a known one), its message or the status, problems and done", async () => {
    const cases: Array<{ status: number; text: string; kind: string; message: string; problems?: string[]; done?: string[] }> = [
      {
        status: 401,
        text: JSON.stringify({ error: "the token was used already", kind: "token" }),
        kind: "configuration",
        message: "the registration broker refused the token: the token was used already",
      },
      {
        status: 422,
        text: JSON.stringify({ error: "bad names", kind: "configuration", problems: ["backup_os: unknown"], done: [] }),
        kind: "configuration",
        message: "registration through the broker failed: bad names",
        problems: ["backup_os: unknown"],
      },
      {
        status: 502,
        text: JSON.stringify({ error: "portal down", kind: "locked", done: ["created consumer 4"] }),
        kind: "locked",
        message: "registration through the broker failed: portal down",
        done: ["created consumer 4"],
      },
      {
        status: 503,
        text: JSON.stringify({ kind: "busy" }),
        kind: "portal",
        message: "registration through the broker failed: status 503",
      },
      { status: 500, text: "not json", kind: "portal", message: "registration through the broker failed: status 500" },
      { status: 200, text: JSON.stringify({ error: 7 }), kind: "portal", message: "registration through the broker failed: status 200" },
      // A result with a failure status is no success.
      {
        status: 502,
        text: JSON.stringify({ result: resultOf(), error: "half an answer" }),
        kind: "portal",
        message: "registration through the broker failed: half an answer",
      },
    ];
    for (const c of cases) {
      const broker = await standIn(() => ({ status: c.status, text: c.text }));
      try {
        const err = await refused(opts(broker.url));
        assert.equal(err.kind, c.kind, c.text);
        assert.equal(err.message, c.message);
        assert.deepEqual(err.problems, c.problems ?? []);
        assert.deepEqual(err.done, c.done ?? []);
        assert.deepEqual(secretDirEntries(), [], "no password file, no temp file");
        // Without a password file, the same error.
        const bare = await refused(opts(broker.url, { passwordFile: undefined }));
        assert.equal(bare.message, c.message);
      } finally {
        await broker.close();
      }
    }
  });

  it("a broker that does not answer, or not in time: nothing changed here, no temp file", async () => {
    const gone = await standIn(() => ({ status: 200, text: "{}" }));
    await gone.close();
    const err = await refused(opts(gone.url));
    assert.equal(err.kind, "portal");
    assert.match(
      err.message,
      new RegExp(`^the registration broker at ${gone.url} did not answer \\(fetch failed\\); nothing was changed here\\. Run again$`),
    );
    assert.deepEqual(secretDirEntries(), []);
    const bare = await refused(opts(gone.url, { passwordFile: undefined }));
    assert.equal(bare.message, err.message);

    const stuck = http.createServer(() => undefined);
    await new Promise<void>((done) => stuck.listen(0, "127.0.0.1", () => done()));
    try {
      const url = `http://127.0.0.1:${(stuck.address() as AddressInfo).port}`;
      const started = Date.now();
      const late = await refused(opts(url, { timeoutMs: 200 }));
      assert.ok(Date.now() - started < 5000);
      assert.match(late.message, /did not answer/);
      assert.deepEqual(secretDirEntries(), []);
    } finally {
      stuck.closeAllConnections();
      await new Promise<void>((done) => stuck.close(() => done()));
    }
  });

  it("no password set by the broker (found registered): the prepared file is dropped; a password file that cannot be prepared is an error first", async () => {
    const broker = await standIn(() => ({
      status: 200,
      text: JSON.stringify({ result: resultOf({ status: "unchanged", actions: [], passwordSet: false }) }),
    }));
    try {
      const result = await registerThroughBroker(opts(broker.url));
      assert.equal(result.passwordFile, undefined);
      assert.deepEqual(secretDirEntries(), []);
      assert.deepEqual(result.warnings, []);
      assert.deepEqual(result.optionFile, { path: optionFile, written: true });

      const blocker = path.join(dir, "a-file");
      fs.writeFileSync(blocker, "");
      const file = path.join(blocker, "node-password");
      const err = await refused(opts(broker.url, { passwordFile: file }));
      assert.equal(err.kind, "files");
      assert.ok(err.message.startsWith(`cannot write the password file ${file}; nothing was changed: `), err.message);
      assert.match(err.message, /ENOTDIR|EEXIST/);
      assert.equal(broker.seen.length, 1, "the broker was not asked");
    } finally {
      await broker.close();
    }
  });

  it("the password was set but its file cannot be moved in place: the command to run, and what the broker did", async () => {
    const broker = await standIn(() => {
      // Something takes the place of the file while the broker works.
      fs.mkdirSync(path.join(passwordFile, "blocker"), { recursive: true });
      return { status: 200, text: JSON.stringify({ result: resultOf() }) };
    });
    try {
      const err = await refused(opts(broker.url));
      assert.equal(err.kind, "files");
      assert.deepEqual(err.done, resultOf().actions);
      assert.deepEqual(err.problems, []);
      assert.match(
        err.message,
        new RegExp(
          `^the node password was set on the portal but the password file ${passwordFile} could not be written \\(.+\\); ` +
            `run \`backup-portal register --rotate-password --password-file ${passwordFile}\` \\(with the broker and a new token\\) once it can be written$`,
        ),
      );
    } finally {
      await broker.close();
    }
  });
});
