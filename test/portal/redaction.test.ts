/**
 * TEST: no spelling of a password reaches an error, its stack, util.inspect, its JSON or a retry line, when a
 * loopback server (a proxy or WAF that echoes requests) answers with the request in every encoding.
 */
import * as assert from "assert";
import * as http from "http";
import * as util from "util";
import { PortalClient } from "../../provider/portal";
import { PortalError } from "../../provider/portal/errors";
import { Transport } from "../../provider/portal/transport";
import { listenLoopback, closeServer } from "../support/loopback";

/** Long and distinctive: each holds LEAKME and 7731, which no encoder changes. */
const PASSWORDS = [
  "LEAKME pass phrase with spaces 7731 end",
  "LEAKME+&=!'()~7731-plus-amp-equals",
  "LEAKME\"double'single\\back/slash7731",
  "LEAKME-n\u00f6n-\u00e4scii-\u20ac-\u{1F600}-7731",
  "LEAKME\u2028line\u2029sep\ttab\n7731",
  "LEAKME all: +&=!'()~ \"\\ \u00fc\u2028 7731",
];

/** .NET's System.Text.Json default: non-ASCII, controls and HTML-sensitive characters as \uXXXX (upper-case hex). */
function dotnet(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const escape = c < 0x20 || c > 0x7e || "\"&'+<>\\`".includes(text[i]);
    out += escape ? `\\u${c.toString(16).toUpperCase().padStart(4, "0")}` : text[i];
  }
  return out;
}

/** Every spelling of a value a server may echo it in. */
function spellings(v: string): string[] {
  const form = new URLSearchParams({ v }).toString().slice(2);
  const uri = encodeURIComponent(v);
  return [
    v,
    JSON.stringify(v).slice(1, -1),
    form,
    form.toLowerCase().replace(/leakme/g, "LEAKME"),
    uri,
    uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    dotnet(v),
  ];
}

/** The values a request carried: its body decoded (form or JSON) and its path and query decoded. */
function carried(req: http.IncomingMessage, body: string): string[] {
  const url = new URL(req.url!, "http://x");
  const values = [...url.pathname.split("/").map(decodeURIComponent), ...url.searchParams.values()];
  if (String(req.headers["content-type"]).includes("form")) values.push(...new URLSearchParams(body).values());
  else if (body) {
    const walk = (v: unknown): void => {
      if (typeof v === "string") values.push(v);
      else if (v && typeof v === "object") Object.values(v).forEach(walk);
    };
    walk(JSON.parse(body));
  }
  return values;
}

/** The request echoed: as received, and every value it carried in every spelling. */
function echo(req: http.IncomingMessage, body: string): string {
  return [`${req.method} ${req.url}`, body, ...carried(req, body).flatMap(spellings)].join(" | ");
}

const SHAPES = ["text", "message", "developerMessage", "code", "error_description"] as const;

describe("portal errors never show a password, in any spelling", function () {
  this.timeout(30000);
  let server: http.Server;
  let url: string;
  let shape: (typeof SHAPES)[number] = "text";
  let status = 400;
  const echoed: string[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const text = echo(req, Buffer.concat(chunks).toString("utf8"));
        echoed.push(text);
        if (shape === "text") res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" }).end(text);
        else
          res
            .writeHead(status, { "Content-Type": "application/json" })
            .end(JSON.stringify({ [shape]: text, ...(shape === "error_description" ? { error: "invalid_grant" } : {}) }));
      });
    });
    url = await listenLoopback(server);
  });
  after(() => closeServer(server));
  beforeEach(() => {
    echoed.length = 0;
    status = 400;
  });

  /** Everything a user or a log could see of an error. */
  const shown = (err: unknown, lines: string[]): string => {
    assert.ok(err instanceof PortalError, String(err));
    return [
      err.message,
      err.stack,
      util.inspect(err),
      util.inspect(err, { showHidden: true, depth: 5 }),
      JSON.stringify(err),
      String(err),
      ...lines,
    ].join("\n");
  };
  const assertClean = (text: string, password: string, where: string) => {
    for (const s of [...spellings(password), "LEAKME", "7731"]) {
      assert.ok(!text.includes(s), `${where}: ${JSON.stringify(s)} shown in:\n${text}`);
    }
  };
  const sanity = (password: string) =>
    assert.ok(
      echoed.some((e) => e.includes("LEAKME") && spellings(password).every((s) => e.includes(s))),
      "the server echoed every spelling",
    );

  for (const password of PASSWORDS) {
    for (const s of SHAPES) {
      it(`the account password ${JSON.stringify(password)}, echoed by the token endpoint as ${s}`, async () => {
        shape = s;
        const lines: string[] = [];
        const client = new PortalClient(
          {
            url,
            origin: "http://localhost",
            clientId: "c",
            username: "u",
            password,
            retryBaseMs: 1,
            retryMaxMs: 5,
            timeoutMs: 2000,
            maxAttempts: 2,
          },
          { log: (l) => lines.push(l) },
        );
        status = 503; // retried, so the retry line is checked too
        const err = await client.timeZones.list().then(
          () => assert.fail("expected a failure"),
          (e: unknown) => e,
        );
        client.close();
        sanity(password);
        assert.strictEqual(lines.length, 1, lines.join("\n"));
        assertClean(shown(err, [...lines, client.redact(echoed.join("\n"))]), password, s);
      });

      it(`a node password ${JSON.stringify(password)} in the body, path and query, echoed as ${s}`, async () => {
        shape = s;
        const lines: string[] = [];
        const t = new Transport({
          url,
          origin: "http://localhost",
          timeoutMs: 2000,
          maxAttempts: 2,
          retryBaseMs: 1,
          retryMaxMs: 5,
          maxSockets: 2,
          maxAnswerBytes: 1 << 20,
          secrets: () => ["the-account-password-91"],
          log: (l) => lines.push(l),
        });
        status = 503;
        const spec = (body: { json: unknown } | { form: Record<string, string> }) => ({
          method: "PUT" as const,
          path: `/v1/nodes/${encodeURIComponent(password)}`,
          query: { tsmPassword: password },
          body,
          retry: "safe" as const,
          auth: false,
          secrets: [password],
        });
        for (const body of [{ json: { tsmPassword: password, nested: [password] } }, { form: { tsmPassword: password } }]) {
          lines.length = 0;
          const err = await t.request(spec(body)).then(
            () => assert.fail("expected a failure"),
            (e: unknown) => e,
          );
          sanity(password);
          assert.strictEqual(lines.length, 1, lines.join("\n"));
          assertClean(shown(err, lines), password, `${s}, ${Object.keys(body)[0]} body`);
        }
        t.close();
      });
    }
  }

  it("the answer to a token request is never quoted, whatever it says; only a known OAuth code is kept", async () => {
    const client = (password: string) =>
      new PortalClient({
        url,
        origin: "http://localhost",
        clientId: "c",
        username: "u",
        password,
        retryBaseMs: 1,
        timeoutMs: 2000,
        maxAttempts: 1,
      });
    for (const s of SHAPES) {
      shape = s;
      const c = client("an-unrelated-password-5521");
      const err = await c.timeZones.list().then(
        () => assert.fail("expected a failure"),
        (e: unknown) => e as PortalError,
      );
      c.close();
      assert.ok(err instanceof PortalError);
      assert.ok(!err.message.includes("grant_type"), `${s}: the echo is quoted: ${err.message}`);
      assert.strictEqual(err.code, s === "error_description" ? "invalid_grant" : undefined, s);
    }
  });
});
