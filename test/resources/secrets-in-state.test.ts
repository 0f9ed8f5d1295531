// What the engine keeps (state, the serialized `__provider`) never holds the portal password or a token the
// provider host actually used: the tokens are taken from the wire by a recording proxy between host and portal.
import assert from "node:assert/strict";
import * as http from "node:http";
import * as os from "node:os";
import { AddressInfo } from "node:net";
import { ref } from "../engine/engine";
import { businessUnit, consumer, node, nodeProxy, portalSuite } from "./support";
import { hashSecret } from "../../emulator/util";
import { businessUnitProviderText } from "../../provider/resources/business-unit";
import { consumerProviderText } from "../../provider/resources/consumer";
import { nodeProviderText } from "../../provider/resources/node";
import { nodeProxyProviderText } from "../../provider/resources/node-proxy";

const PORTAL_PASSWORD = "Portal-Account-Pa55word-7f3c91e2d4b8";
const NODE_PASSWORD = "Node-Tsm-Pa55word-0a9e4c7b21f6";
const secret = (value: string) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value });

/** Forwards to `target`, keeping every bearer token sent and every token handed out. */
async function recordingProxy(target: string) {
  const tokens = new Set<string>();
  const server = http.createServer((req, res) => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    if (bearer) tokens.add(bearer[1]);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const up = http.request(
        `${target}${req.url}`,
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (answer) => {
          const body: Buffer[] = [];
          answer.on("data", (c: Buffer) => body.push(c));
          answer.on("end", () => {
            const text = Buffer.concat(body).toString("utf8");
            if (req.url?.startsWith("/v1/oauth")) {
              try {
                const t = JSON.parse(text) as Record<string, unknown>;
                for (const k of ["access_token", "refresh_token"]) if (typeof t[k] === "string") tokens.add(t[k] as string);
              } catch {
                /* not a token answer */
              }
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
          });
        },
      );
      up.on("error", () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tokens,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe("secrets never reach what the engine keeps", function () {
  this.timeout(60_000);
  const p = portalSuite();

  it("state and __provider hold neither the portal password nor any token the host used, nor a node password or a path", async () => {
    p.emu.update((s) => {
      const admin = s.users.find((u) => u.username === "admin")!;
      admin.passwordHash = hashSecret(PORTAL_PASSWORD, admin.passwordSalt);
    });
    const proxy = await recordingProxy(p.emu.url);
    try {
      const eng = p.engine({
        config: { "backup-portal:password": PORTAL_PASSWORD },
        secretConfigKeys: ["backup-portal:password"],
        env: { BACKUP_PORTAL_URL: proxy.url, BACKUP_PORTAL_PASSWORD: "" },
      });
      await eng.up([
        businessUnit("acme", { parentId: 1, name: "acme", registrationNumber: "1", timeZone: "UTC" }),
        consumer("a", { businessUnitId: ref("acme"), name: "a" }),
        consumer("b", { businessUnitId: ref("acme"), name: "b" }),
        node("a-node", {
          businessUnitId: ref("acme"),
          consumerId: ref("a"),
          operatingSystem: "Linux",
          type: "File server",
          domain: "STANDARD",
          cpuCount: 1,
          tsmName: "ACME-A",
          tsmPassword: secret(NODE_PASSWORD),
        }),
        node("b-node", {
          businessUnitId: ref("acme"),
          consumerId: ref("b"),
          operatingSystem: "Linux",
          type: "File server",
          domain: "STANDARD",
          cpuCount: 1,
        }),
        {
          ...nodeProxy("b>a", { businessUnitId: ref("acme"), agentConsumerId: ref("b"), targetConsumerId: ref("a") }),
          dependsOn: ["a-node", "b-node"],
        },
      ]);
      await eng.refresh();
      assert.ok(proxy.tokens.size >= 1, "the host's requests went through the proxy with a token");
      const texts = await Promise.all(
        [businessUnitProviderText, consumerProviderText, nodeProviderText, nodeProxyProviderText].map((x) => eng.serializeProvider(x)),
      );
      const state = eng.stateJson();
      const forbidden = [PORTAL_PASSWORD, NODE_PASSWORD, ...proxy.tokens];
      for (const { text, containsSecrets } of texts) {
        assert.equal(containsSecrets, false);
        assert.ok(text.length < 16 * 1024, `${text.length} bytes`);
        for (const bad of [...forbidden, os.homedir(), process.cwd(), "/work/", "/home/", "/root/", "BACKUP_PORTAL_PASSWORD"]) {
          assert.ok(!text.includes(bad), `__provider contains ${bad}`);
        }
      }
      for (const bad of [...forbidden, process.cwd()]) assert.ok(!state.includes(bad), `state contains ${bad.slice(0, 12)}…`);
      assert.ok(!eng.currentHost!.logs().includes(PORTAL_PASSWORD), "no password in the host's log");
    } finally {
      await proxy.close();
    }
  });
});
