// A URL that does not answer as the Cloutility API is recognised in one place (provider/portal/errors.ts,
// `notTheApi`) and every path says so with the fix: each command, the doctor, `register`, and the providers'
// errors. Against real servers on 127.0.0.1: a plain web server (404 and 501 pages, as `python3 -m http.server`
// answers), the emulator under a wrong path, a redirect; and, so that the test is not blind, the emulator at
// its right address still refuses a wrong password and a missing object in its own words.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import type { AddressInfo } from "node:net";
import { mainInProcess } from "../cli/process";
import { configure, resetConnection } from "../../provider/dynamic/connection";
import { businessUnitLifecycle } from "../../provider/resources/business-unit";
import { PortalClient } from "../../provider/portal/client";
import { isNotFound, isNotTheApi, notTheApi, unlessNotFound } from "../../provider/portal/errors";
import { isLoginRefused } from "../../provider/portal/login";
import { resolveSettings } from "../../provider/portal/settings";
import { envFor, Emulator, startEmulator, stackConfigFor } from "../support/portal";
import { MetadataService, SAMPLE_METADATA, startMetadataService } from "../../emulator/metadata-service";

const NOT_API = /this URL \(http:\/\/127\.0\.0\.1:\d+[^)]*\) does not answer as the Cloutility API: /;
const CLI_FIX = /set BACKUP_PORTAL_URL to the portal API's base address \(the part before \/v1/;
/** What a refused login or a failing portal would say: wrong for a URL that is not the API's. */
const WRONG_WAY = /authentication failed|check BACKUP_PORTAL_CLIENT_ID|try again later|refused the login|does not exist on the portal/;

/** A plain web server: an HTML 404 for GET, an HTML 501 for every other method (python3 -m http.server's answers). */
function plainWebServer(): http.Server {
  return http.createServer((req, res) => {
    req.resume();
    const status = req.method === "GET" || req.method === "HEAD" ? 404 : 501;
    const page = `<!DOCTYPE HTML>\n<html><head><title>Error response</title></head><body><h1>Error response</h1><p>Error code: ${status}</p></body></html>\n`;
    res.writeHead(status, { "Content-Type": "text/html;charset=utf-8", Connection: "close" }).end(page);
  });
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

describe("a URL that does not answer as the Cloutility API: one recognition, the same words everywhere", function () {
  this.timeout(120_000);
  let emu: Emulator;
  let plain: http.Server;
  let redirect: http.Server;
  let meta: MetadataService;
  let dir: string;
  /** The URLs that are not the API's, by what stands there. */
  const wrong: Record<string, string> = {};

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    plain = plainWebServer();
    wrong["a plain web server"] = await listen(plain);
    wrong["the emulator under a wrong path"] = `${emu.url}/portal`;
    redirect = http.createServer((req, res) => {
      req.resume();
      res.writeHead(301, { Location: `https://portal.example.test${req.url}`, Connection: "close" }).end();
    });
    wrong["a redirect"] = await listen(redirect);
    meta = await startMetadataService({ metadata: { ...SAMPLE_METADATA, meta: { backup_bunit: "2" } } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bp-not-the-api-"));
  });
  after(async () => {
    resetConnection();
    await emu?.close();
    if (plain) await close(plain);
    if (redirect) await close(redirect);
    await meta?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const cli = mainInProcess;

  const commands: Record<string, string[]> = {
    reports: ["reports", "--bunit", "2", "--consumer", "1"],
    jobs: ["jobs", "--bunit", "2", "--consumer", "1", "--all"],
    audit: ["audit", "--bunit", "2", "--consumer", "1"],
    invoices: ["invoices", "--bunit", "1"],
    billing: ["billing", "--bunit", "1"],
    export: ["export", "--bunit", "2"],
  };

  it("every data command and export: exit 1, this URL is not the API, and the fix names BACKUP_PORTAL_URL only", async () => {
    for (const [what, url] of Object.entries(wrong)) {
      for (const [name, argv] of Object.entries(commands)) {
        const r = await cli([...argv, "--timeout", "10"], { ...envFor(emu), BACKUP_PORTAL_URL: url });
        assert.equal(r.code, 1, `${name} at ${what}: ${r.text}`);
        assert.match(r.text, NOT_API, `${name} at ${what}: ${r.text}`);
        assert.match(r.text, CLI_FIX, `${name} at ${what}: ${r.text}`);
        assert.doesNotMatch(r.text, WRONG_WAY, `${name} at ${what}: ${r.text}`);
        assert.equal(r.text.trim().split("\n").length, 1, `${name} at ${what}: one line: ${r.text}`);
      }
    }
  });

  it("the reason says what stood there: a 501 page, a token request nobody answers, a redirect and its target", async () => {
    const reasons: Record<string, RegExp> = {
      "a plain web server": /POST \/v1\/oauth failed \(HTTP 501\)\. Hint: .*: it answered with an HTML page, not the API's JSON;/,
      "the emulator under a wrong path": /POST \/v1\/oauth failed \(HTTP 404\)\. Hint: .*: nothing answers its token request \(HTTP 404\)/,
      "a redirect":
        /POST \/v1\/oauth failed \(HTTP 301\)\. Hint: .*: it answered with a redirect to "https:\/\/portal\.example\.test\/v1\/oauth"/,
    };
    for (const [what, url] of Object.entries(wrong)) {
      const r = await cli(commands.invoices, { ...envFor(emu), BACKUP_PORTAL_URL: url });
      assert.match(r.text, reasons[what], `${what}: ${r.text}`);
    }
  });

  it("the real command as a user runs it (bin/backup-portal.js), at a plain web server", async () => {
    const bin = path.join(__dirname, "..", "..", "bin", "backup-portal.js");
    // Asynchronously: the web server answers in this process.
    const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, "jobs", "--bunit", "2", "--consumer", "1", "--all"], {
        env: { ...process.env, ...envFor(emu), BACKUP_PORTAL_URL: wrong["a plain web server"] },
        stdio: ["ignore", "ignore", "pipe"],
        timeout: 60_000,
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
      child.on("close", (status) => resolve({ status, stderr }));
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, NOT_API);
    assert.match(r.stderr, CLI_FIX);
    assert.doesNotMatch(r.stderr, WRONG_WAY);
  });

  it("doctor: the version or login check fails with the same words and the URL fix", async () => {
    for (const [what, url] of Object.entries(wrong)) {
      const r = await cli(["doctor", "--bunit", "2", "--timeout", "10"], { ...envFor(emu), BACKUP_PORTAL_URL: url });
      assert.equal(r.code, 1, `${what}: ${r.text}`);
      assert.match(
        r.text,
        /failed +(version|login) +this URL \(http:\/\/127\.0\.0\.1:\d+[^)]*\) does not answer as the Cloutility API/,
        `${what}: ${r.text}`,
      );
      assert.match(r.text, /fix: set BACKUP_PORTAL_URL to the portal API's base address/, `${what}: ${r.text}`);
      assert.doesNotMatch(r.text, /refused the login|authentication failed/, `${what}: ${r.text}`);
    }
  });

  it("register: a configuration error (exit 3) with the same words, nothing changed", async () => {
    for (const [what, url] of Object.entries(wrong)) {
      const r = await cli(
        [
          "register",
          "--url",
          meta.url,
          "--no-config-drive",
          "--dry-run",
          "--quiet",
          "--lock-file",
          path.join(dir, "lock"),
          "--option-file",
          path.join(dir, "dsm.opt"),
          "--portal-timeout",
          "10",
        ],
        { ...envFor(emu), BACKUP_PORTAL_URL: url },
      );
      assert.equal(r.code, 3, `${what}: ${r.text}`);
      assert.match(r.text, NOT_API, `${what}: ${r.text}`);
      assert.doesNotMatch(r.text, /refused the account|no business unit with this id/, `${what}: ${r.text}`);
    }
  });

  it("the providers' errors: the stack's setting named, and a read never takes it for a gone object", async () => {
    for (const [what, url] of Object.entries(wrong)) {
      const client = new PortalClient({ ...resolveSettings(undefined, { ...envFor(emu), BACKUP_PORTAL_URL: url }), maxAttempts: 1 });
      try {
        const err = await unlessNotFound(client.businessUnits.get(2)).then(
          () => assert.fail(`${what}: a read answered`),
          (e: unknown) => e,
        );
        assert.ok(isNotTheApi(err), `${what}: ${String(err)}`);
        assert.equal(isNotFound(err), false, `${what}: not "the object does not exist"`);
        assert.equal(isLoginRefused(err), false, `${what}: not a refused login`);
        const message = (err as Error).message;
        assert.match(message, NOT_API);
        assert.match(message, /set backup-portal:url \(or BACKUP_PORTAL_URL\) to the portal API's base address/);
        assert.doesNotMatch(message, /pulumi refresh|authentication failed|try again later/);
      } finally {
        client.close();
      }
    }
    // The provider's own read (what `pulumi refresh` runs): an error, not "deleted on the portal".
    const config = stackConfigFor(wrong["the emulator under a wrong path"]);
    resetConnection();
    configure({ get: (k) => config[k] });
    await assert.rejects(
      businessUnitLifecycle.read!("2", { parentId: 1, name: "Tenant A", registrationNumber: "1", timeZone: "UTC" }),
      (e: Error) => NOT_API.test(e.message) && /backup-portal:url/.test(e.message),
    );
  });

  it("the API at its own address keeps its own words: a wrong password, a missing object, a proxy's 503 page", async () => {
    const refused = await cli(commands.invoices, { ...envFor(emu), BACKUP_PORTAL_PASSWORD: "Wr0ng-NotApi-Pa55word" });
    assert.equal(refused.code, 1);
    assert.match(refused.text, /authentication failed: check BACKUP_PORTAL_CLIENT_ID/);
    assert.doesNotMatch(refused.text, /does not answer as the Cloutility API/);
    const missing = await cli(["invoices", "--bunit", "999"], envFor(emu));
    assert.match(missing.text, /HTTP 404.*the object does not exist on the portal/);
    assert.doesNotMatch(missing.text, /does not answer as the Cloutility API/);
    // A proxy in front of a portal that is down answers 503 with a page of its own: that is "try again later".
    assert.equal(notTheApi({ method: "GET", path: "/v1/bunits/2", status: 503, contentType: "text/html", text: "<html>" }), undefined);
    assert.equal(notTheApi({ method: "GET", path: "/v1/bunits/2", status: 404, contentType: "application/json", text: "{}" }), undefined);
    assert.equal(notTheApi({ method: "POST", path: "/v1/oauth", status: 400, contentType: "application/json", text: "{}" }), undefined);
  });
});
