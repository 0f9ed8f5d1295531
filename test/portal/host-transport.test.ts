/**
 * TEST: in the real dynamic-provider host (which loads ./dist: run `npm run build` first), the client sends with
 * node-fetch, not Node's global fetch (Pulumi's serializer would turn a captured `fetch` into the global one), and
 * BACKUP_PORTAL_MAX_ANSWER_BYTES reaches it.
 */
import * as assert from "assert";
import * as http from "http";
import { AddressInfo } from "net";
import { businessUnit, engines, ops } from "../resources/support";
import { Emulator, envFor, startEmulator } from "../support/portal";

describe("the provider host's transport", function () {
  this.timeout(60_000);
  let emu: Emulator;
  let proxy: http.Server;
  let proxyUrl: string;
  const agents: string[] = [];
  const e = engines(() => emu);

  before(async () => {
    emu = await startEmulator({ port: 0, quiet: true });
    const target = new URL(emu.url);
    // Records each request's User-Agent and passes it on to the emulator unchanged.
    proxy = http.createServer((req, res) => {
      agents.push(String(req.headers["user-agent"]));
      const out = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on("error", () => res.destroy());
      req.pipe(out);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    await e.closeAll();
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
    await emu.close();
  });
  beforeEach(() => {
    emu.reset();
    agents.length = 0;
  });
  afterEach(() => e.closeAll());

  const unit = businessUnit("ua", { parentId: 1, name: "UA", registrationNumber: "1", timeZone: "UTC" });

  it("sends every request with node-fetch's User-Agent", async () => {
    const eng = e.engine({ env: { ...envFor(emu), BACKUP_PORTAL_URL: proxyUrl } });
    const r = await eng.up([unit]);
    assert.deepStrictEqual(ops(r.steps), { ua: "create" });
    assert.ok(agents.length >= 2, `${agents.length} requests`);
    assert.deepStrictEqual([...new Set(agents)], ["node-fetch/1.0 (+https://github.com/bitinn/node-fetch)"]);
  });

  it("takes the answer cap from BACKUP_PORTAL_MAX_ANSWER_BYTES", async () => {
    const eng = e.engine({ env: { ...envFor(emu), BACKUP_PORTAL_MAX_ANSWER_BYTES: "64" } });
    await assert.rejects(eng.up([unit]), /AnswerTooLarge: the answer is larger than 64 bytes/);
  });
});
