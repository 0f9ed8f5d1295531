// A portal's error text is a tenant's to steer (a name quoted back, a message): whichever provider path hands it to
// the engine, its control characters arrive written out, so the CLI's display shows them and a terminal never acts
// on them, and a line break in it cannot forge a line of the CLI's output.
import assert from "node:assert/strict";
import * as http from "node:http";
import { listenLoopback, closeServer } from "../support/loopback";
import { ORIGIN } from "../support/portal";
import { secret } from "../engine/values";
import { GrpcCallError } from "../engine/grpc-unary";
import { Plugin, urnOf } from "./plugin";
import { hostProvider, Lifecycle } from "../../provider/dynamic/provider";
import { PortalError } from "../../provider/portal/errors";

/** What a terminal would act on: every control character but the line break. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
/** Retitles the window, clears the screen (an 8-bit CSI), and starts a line that looks like the CLI's own. */
const STEERING = "Acme\u001b]0;pwned\u0007 \u009b2J\u007f\nerror: everything is fine";

describe("a tenant's text in a provider's error reaches the engine written out", function () {
  this.timeout(60_000);

  it("PortalError: the portal's words on one line, each control as \\xNN; the fields keep them as sent", () => {
    const e = new PortalError({ method: "GET", path: "/v1/bunits/5", status: 500, code: "Echo", message: STEERING });
    assert.ok(!RAW_CONTROL.test(e.message) && !e.message.includes("\n"), JSON.stringify(e.message));
    assert.match(e.message, /: Echo: Acme\\x1b\]0;pwned\\x07 \\x9b2J\\x7f\\x0aerror: everything is fine\. Hint: /);
    assert.equal(e.portalMessage, STEERING, "a program reading the field gets the portal's text");
  });

  describe("the plugin (gRPC), against a portal that answers with that text", () => {
    let server: http.Server;
    let plugin: Plugin;

    before(async () => {
      server = http.createServer((req, res) => {
        req.resume().on("end", () => {
          const json = (status: number, body: unknown) =>
            res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
          if (req.url === "/v1/oauth") json(200, { access_token: "t", token_type: "bearer", expires_in: 299 });
          else json(500, { status: 500, code: "Echo", message: STEERING, developerMessage: STEERING });
        });
      });
      const url = await listenLoopback(server);
      plugin = await Plugin.start();
      await plugin.configure({ url, origin: ORIGIN, clientId: "emulator", username: "admin", password: secret("admin") });
    });
    after(async () => {
      await plugin?.close();
      if (server) await closeServer(server);
    });

    it("Read's error status holds the text escaped, and no raw control or forged line", async () => {
      const err = await plugin.read("5", urnOf("BusinessUnit", "acme"), { businessUnitId: 5 }).then(
        () => assert.fail("the read should fail"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof GrpcCallError, String(err));
      assert.match(err.details, /Acme\\x1b\]0;pwned\\x07 \\x9b2J\\x7f\\x0aerror: everything is fine/);
      assert.ok(!RAW_CONTROL.test(err.details) && !err.details.includes("\n"), JSON.stringify(err.details));
    });
  });

  describe("the dynamic providers' host object", () => {
    /** A lifecycle whose every call fails with `error`. */
    const failing = (error: unknown): Lifecycle => {
      const fail = () => Promise.reject(error);
      return { check: fail, diff: fail, create: fail, read: fail, update: fail, delete: fail };
    };

    it("escapes a thrown error's controls, keeps the provider's own line breaks, and keeps the same object and fields", async () => {
      const thrown = Object.assign(new Error(`create failed: ${STEERING.replace("\n", " ")}\nHint: check the name`), { id: "42" });
      const host = hostProvider(failing(thrown));
      for (const call of [() => host.create!({}), () => host.read!("42", {}), () => host.delete!("42", {})]) {
        const got = (await call().then(
          () => assert.fail("expected a failure"),
          (e: unknown) => e,
        )) as Error & { id?: string };
        assert.equal(got, thrown, "the engine reads a partial create's id from the same error");
        assert.equal(got.id, "42");
        assert.ok(!RAW_CONTROL.test(got.message), JSON.stringify(got.message));
        assert.equal(got.message.split("\n").length, 2, "the provider's own line break stays");
        assert.match(got.message, /Acme\\x1b\]0;pwned\\x07 \\x9b2J\\x7f error: everything is fine\nHint: check the name$/);
      }
    });

    it("a thrown non-Error becomes an Error with its text escaped", async () => {
      const got = await hostProvider(failing("bad \u001b[2J")).diff!("1", {}, {}).then(
        () => assert.fail("expected a failure"),
        (e: unknown) => e,
      );
      assert.ok(got instanceof Error);
      assert.equal(got.message, "bad \\x1b[2J");
    });
  });
});
