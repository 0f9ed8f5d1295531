import assert from "node:assert/strict";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { call, control, login, SEED, useAccounts } from "./helpers";

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A tiny notification receiver on 127.0.0.1; `noContinue` holds back the 100 Continue. */
async function receiver(opts: { status?: number; noContinue?: boolean } = {}) {
  const got: Received[] = [];
  const server = http.createServer();
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      res.writeHead(opts.status ?? 200).end("ok");
    });
  };
  server.on("request", handle);
  if (opts.noContinue) server.on("checkContinue", handle); // no automatic 100 Continue
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    got,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

describe("emulator: billing", () => {
  const ctx = useAccounts();

  it("contract, invoices and one invoice by the date in its href", async () => {
    const contract = await ctx.admin.get("/v1/bunits/1/contract");
    assert.equal(contract.status, 200);
    assert.deepEqual([contract.body.id, contract.body.currency], [SEED.billing.contractId, "EUR"]);
    const invoices = await ctx.admin.get("/v1/bunits/1/invoices");
    assert.deepEqual(
      invoices.body.items.map((i: { date: string }) => i.date),
      [...SEED.billing.periods],
    );
    const date = /\/invoices\/(\d{4}-\d{2}-\d{2})$/.exec(invoices.body.items[0].href)?.[1];
    assert.equal(date, SEED.billing.periods[0]);
    const one = await ctx.admin.get(`/v1/bunits/1/invoices/${date}`);
    assert.equal(one.body.id, invoices.body.items[0].id);
    assert.equal((await ctx.admin.get("/v1/bunits/1/invoices/2025-13-01")).status, 400);
    assert.equal((await ctx.admin.get("/v1/bunits/1/invoices/1999-01-01")).status, 404);
    assert.equal((await ctx.admin.get("/v1/bunits/2/contract")).status, 404);
    assert.equal((await ctx.tenant.get("/v1/bunits/1/invoices")).status, 403);
  });

  it("invoice files: list and upload", async () => {
    const before = await ctx.admin.get("/v1/bunits/1/invoicefiles");
    assert.equal(before.body.total, 1);
    const up = await call(ctx.em, "POST", "/v1/bunits/1/invoicefiles?erpReference=ERP-9&sendToBillingAddress=true", {
      token: await login(ctx.em),
      body: Buffer.from("%PDF-1.4 hello"),
      headers: { "Content-Type": "application/pdf", "X-File-Name": "x.pdf" },
    });
    assert.equal(up.status, 200, up.text);
    assert.deepEqual([up.body.fileName, up.body.size, up.body.erpReference, up.body.sendToBillingAddress], ["x.pdf", 14, "ERP-9", true]);
    assert.equal((await ctx.admin.get("/v1/bunits/1/invoicefiles")).body.total, 2);
  });

  it("billing data only on a reseller; includeNext adds forecasts", async () => {
    const list = await ctx.admin.get("/v1/bunits/1/billing");
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.items.map((b: { period: string }) => b.period),
      [...SEED.billing.periods],
    );
    const b = list.body.items[0];
    assert.ok(b.lines.length >= 3 && typeof b.total === "number" && typeof b.generatedDate === "string");
    const next = await ctx.admin.get("/v1/bunits/1/billing?includeNext=2");
    assert.equal(next.body.items.length, 5);
    assert.equal("generatedDate" in next.body.items[4], false, "a forecast is not generated yet");
    assert.equal((await ctx.admin.get(`/v1/bunits/1/billing/${SEED.billing.periods[1]}`)).body.period, SEED.billing.periods[1]);
    const notReseller = await ctx.admin.get("/v1/bunits/2/billing");
    assert.equal(notReseller.status, 400);
    assert.equal(notReseller.body.code, "NotReseller");
    assert.equal((await ctx.tenant.get("/v1/bunits/2/billing")).body.code, "NotReseller");
    assert.equal((await ctx.tenant.get("/v1/bunits/1/billing")).status, 403);
  });

  describe("notification", () => {
    it("the test request: headers including Expect: 100-continue, and the body", async () => {
      const rx = await receiver({ status: 204 });
      try {
        const sub = await control(ctx.em, "POST", "/billing/subscribers", { businessUnitId: 1, url: `${rx.url}/hook?key=abc` });
        assert.equal(sub.status, 200, sub.text);
        const r = await control(ctx.em, "POST", "/billing/test", { businessUnitId: 1 });
        assert.equal(r.status, 200, r.text);
        assert.equal(rx.got.length, 1);
        const got = rx.got[0];
        assert.equal(got.method, "POST");
        assert.equal(got.url, "/hook?key=abc");
        assert.equal(got.headers["content-type"], "application/json; charset=utf-8");
        assert.equal(got.headers.expect, "100-continue");
        assert.equal(got.headers["content-length"], String(Buffer.byteLength(got.body)));
        assert.deepEqual(JSON.parse(got.body), { trigger: "test for new billing data available" });
        const d = r.body.deliveries[0];
        assert.deepEqual([d.status, d.continued, d.bodySent, d.url], [204, true, true, `${rx.url}/hook?key=abc`]);
        assert.equal(d.sent.body, got.body);
        assert.equal(d.sent.headers.Expect, "100-continue");
      } finally {
        await rx.close();
      }
    });

    it("generating billing data creates a period and notifies every subscriber", async () => {
      const rx1 = await receiver();
      const rx2 = await receiver({ status: 500 });
      try {
        ctx.em.addBillingSubscriber(1, rx1.url);
        await control(ctx.em, "POST", "/billing/subscribers", { businessUnitId: 1, url: rx2.url });
        const r = await control(ctx.em, "POST", "/billing/generate", { businessUnitId: 1 });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.period, "2025-04-01", "the month after the latest period");
        assert.deepEqual(r.body.deliveries.map((d: { status: number }) => d.status).sort(), [200, 500]);
        for (const rx of [rx1, rx2]) {
          assert.equal(rx.got.length, 1);
          assert.deepEqual(JSON.parse(rx.got[0].body), { trigger: "new billing data available", businessUnitId: 1, period: "2025-04-01" });
        }
        const list = await ctx.admin.get("/v1/bunits/1/billing");
        assert.equal(list.body.items[list.body.items.length - 1].period, "2025-04-01");
        assert.equal((await ctx.admin.get("/v1/bunits/1/invoices/2025-04-01")).status, 200);
        const explicit = await ctx.em.generateBilling(1, "2026-01-01");
        assert.equal(explicit.period, "2026-01-01");
        assert.equal(rx1.got.length, 2);
      } finally {
        await rx1.close();
        await rx2.close();
      }
    });

    it("sends the body after about a second when no 100 Continue comes", async function () {
      this.timeout(10_000);
      const rx = await receiver({ noContinue: true });
      try {
        ctx.em.addBillingSubscriber(1, rx.url);
        const started = Date.now();
        const res = await ctx.em.sendBillingTest(1);
        const d = res.deliveries[0];
        assert.deepEqual([d.status, d.continued, d.bodySent], [200, false, true]);
        assert.ok(Date.now() - started >= 900, "waited for the fallback");
        assert.deepEqual(JSON.parse(rx.got[0].body), { trigger: "test for new billing data available" });
      } finally {
        await rx.close();
      }
    });

    it("reports an unreachable subscriber and refuses non-resellers", async () => {
      const rx = await receiver();
      const deadUrl = rx.url;
      await rx.close();
      ctx.em.addBillingSubscriber(1, deadUrl);
      const res = await control(ctx.em, "POST", "/billing/test", { businessUnitId: 1 });
      assert.equal(res.status, 200);
      assert.equal(res.body.deliveries[0].status, null);
      assert.equal(typeof res.body.deliveries[0].error, "string");
      const bad = await control(ctx.em, "POST", "/billing/subscribers", { businessUnitId: 2, url: "http://127.0.0.1:1/x" });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, "NotReseller");
      assert.equal((await control(ctx.em, "POST", "/billing/generate", { businessUnitId: 2 })).status, 400);
      assert.equal((await control(ctx.em, "POST", "/billing/subscribers", { businessUnitId: 1, url: "ftp://x" })).status, 400);
    });
  });
});
