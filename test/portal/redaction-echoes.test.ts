// Two more spellings a front echoes a request in: an HTML error page (`&lt;`, `&amp;`, `&quot;`, `&#39;`) of the
// JSON-escaped body, and JSON whose writer escapes the slash (`\/`). A loopback server answers the token request so;
// the error shows `***` where the password stood. And redact itself, over generated secrets and every echo.
import assert from "node:assert/strict";
import * as http from "node:http";
import fc from "fast-check";
import { PortalClient } from "../../provider/portal";
import { PortalError, redact } from "../../provider/portal/errors";
import { closeServer, listenLoopback } from "../support/loopback";

/** How an HTML page writes text: the five characters every escaper escapes, as entities of each kind. */
const htmlOf = (text: string, form: "named" | "decimal" | "hex") =>
  text.replace(/[&<>"']/g, (c) =>
    form === "named"
      ? { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]!
      : form === "decimal"
        ? `&#${c.charCodeAt(0)};`
        : `&#x${c.charCodeAt(0).toString(16)};`,
  );
const json = (v: string) => JSON.stringify(v).slice(1, -1);
const slashes = (text: string) => text.replace(/\//g, "\\/");

/** The echoes of a value the review saw, and their kin. */
const echoes = (v: string) => [
  htmlOf(json(v), "named"),
  htmlOf(json(v), "decimal"),
  htmlOf(json(v), "hex"),
  htmlOf(v, "named"),
  slashes(json(v)),
  htmlOf(slashes(json(v)), "named"),
];

describe("redaction of a front's HTML and escaped-slash echoes", function () {
  this.timeout(30_000);
  let server: http.Server;
  let url: string;
  let answer: (values: string[]) => { status: number; type: string; body: string };
  /** Whether the token request is answered as the others (else it gets a token). */
  let echoLogin = true;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const values = String(req.headers["content-type"]).includes("form")
          ? [...new URLSearchParams(body).values()]
          : Object.values(JSON.parse(body || "{}") as Record<string, string>);
        if (req.url?.startsWith("/v1/oauth") && !echoLogin) {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ access_token: "tok-echoes-0123456789", token_type: "bearer", expires_in: 299 }));
          return;
        }
        const a = answer(values);
        res.writeHead(a.status, { "Content-Type": a.type }).end(a.body);
      });
    });
    url = await listenLoopback(server);
  });
  after(() => closeServer(server));

  /** What a user sees of the error: the account's login, or a node password set, answered with `answer`. */
  async function errorOf(password: string, what: "login" | "node password"): Promise<string> {
    echoLogin = what === "login";
    const client = new PortalClient({
      url,
      origin: "http://localhost",
      clientId: "c",
      username: "u",
      password: what === "login" ? password : "the-account-password-44",
      maxAttempts: 1,
      timeoutMs: 2000,
    });
    try {
      const call = what === "login" ? client.timeZones.list() : client.nodes.setPassword(2, 3, password);
      const err = await call.then(
        () => assert.fail("expected a failure"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof PortalError, String(err));
      return `${err.message}\n${err.stack}`;
    } finally {
      client.close();
    }
  }

  for (const what of ["node password", "login"] as const) {
    it(`a 500 HTML page echoing the JSON-escaped body (${what}): the password is *** in the error`, async () => {
      const password = 'Sup3r<K3y>&Pa55"w0rd';
      answer = (values) => ({
        status: 500,
        type: "text/html",
        body: `<html><body><h1>Error</h1><pre>${values.map((v) => htmlOf(`"${json(v)}"`, "named")).join(", ")}</pre></body></html>`,
      });
      const shown = await errorOf(password, what);
      // The token endpoint's answer is not quoted at all; a node password's is, with the password as ***.
      if (what === "node password") assert.match(shown, /<pre>&quot;\*\*\*&quot;<\/pre>/, shown);
      assert.doesNotMatch(shown, /Sup3r|K3y|Pa55|w0rd/, shown);
    });
  }

  it("a 400 JSON answer whose writer escapes slashes: the password is *** in the error", async () => {
    const password = "Sup3r/K3y/Pa55/w0rd";
    answer = (values) => ({
      status: 400,
      type: "application/json",
      // The request body echoed as JSON text, inside the answer's message.
      body: JSON.stringify({ message: `bad request: ${slashes(JSON.stringify(values))}` }),
    });
    const shown = await errorOf(password, "node password");
    assert.match(shown, /bad request: \["\*\*\*"\]/, shown);
    assert.doesNotMatch(shown, /Sup3r|K3y|Pa55|w0rd/, shown);
  });

  it("any secret of 4 or more characters, in each of these echoes, is *** (property)", () => {
    fc.assert(
      fc.property(
        fc.string({
          minLength: 4,
          maxLength: 24,
          unit: fc.oneof(fc.constantFrom(..."&<>\"'/\\ "), fc.string({ minLength: 1, maxLength: 1, unit: "binary" })),
        }),
        (secret) => {
          for (const spelt of echoes(secret)) assert.equal(redact(`[${spelt}]`, [secret]), "[***]", JSON.stringify(spelt));
        },
      ),
      { numRuns: 300, seed: 44 },
    );
  });
});
