import assert from "node:assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { clientSuite } from "../support/portal";
import { PortalError } from "../../provider/portal";
import {
  contentTypeOf,
  getBillingData,
  getBillingDataFor,
  getContract,
  getInvoice,
  getInvoiceFiles,
  getInvoices,
  uploadInvoiceFile,
} from "../../provider/data";

describe("data: contract, invoices, invoice files and billing data", function () {
  this.timeout(30000);
  const p = clientSuite();

  it("the contract", async () => {
    const c = await getContract(p.client, 1);
    assert.equal(c.name, "Reseller agreement");
    assert.equal(c.currency, "EUR");
  });

  it("invoices with their date from the href, a range, and one invoice by date or by invoice", async () => {
    const all = await getInvoices(p.client, 1);
    assert.deepEqual(
      all.map((i) => i.date),
      ["2025-01-01", "2025-02-01", "2025-03-01"],
    );
    assert.ok(all.every((i) => i.href!.endsWith(`/invoices/${i.date}`)));
    assert.deepEqual(
      (await getInvoices(p.client, 1, { from: "2025-02-01" })).map((i) => i.date),
      ["2025-02-01", "2025-03-01"],
    );
    assert.deepEqual(
      (await getInvoices(p.client, 1, { from: "2025-01-15", to: "2025-02-15" })).map((i) => i.date),
      ["2025-02-01"],
    );
    const one = await getInvoice(p.client, 1, "2025-02-01");
    assert.deepEqual(one, all[1]);
    assert.deepEqual(await getInvoice(p.client, 1, all[2]), all[2]);
    await assert.rejects(getInvoice(p.client, 1, "2025-13-01"), RangeError);
    await assert.rejects(getInvoice(p.client, 1, "2024-01-01"), (err: unknown) => err instanceof PortalError && err.status === 404);
  });

  it("invoice files, and uploads from memory and from a path", async () => {
    const before = await getInvoiceFiles(p.client, 1);
    assert.deepEqual(
      before.map((f) => f.fileName),
      ["invoice-2025-03-01.pdf"],
    );
    const pdf = Buffer.from("%PDF-1.4\n% test invoice\n%%EOF\n");
    const a = await uploadInvoiceFile(p.client, 1, {
      fileName: "inv-a.pdf",
      content: pdf,
      erpReference: "ERP-A",
      sendToBillingAddress: true,
    });
    assert.equal(a.fileName, "inv-a.pdf");
    assert.equal(a.size, pdf.length);
    assert.equal(a.erpReference, "ERP-A");
    assert.equal(a.sendToBillingAddress, true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "invoice-"));
    try {
      const file = path.join(dir, "inv-b.pdf");
      fs.writeFileSync(file, pdf);
      const b = await uploadInvoiceFile(p.client, 1, { path: file });
      assert.equal(b.fileName, "inv-b.pdf");
      assert.equal(b.sendToBillingAddress, false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const stored = p.emu.state().invoiceFiles.filter((f) => f.fileName.startsWith("inv-"));
    assert.deepEqual(
      stored.map((f) => [f.fileName, f.contentType, Buffer.from(f.contentBase64, "base64").toString()]),
      [
        ["inv-a.pdf", "application/pdf", pdf.toString()],
        ["inv-b.pdf", "application/pdf", pdf.toString()],
      ],
    );
    assert.equal((await getInvoiceFiles(p.client, 1)).length, 3);
    assert.equal(contentTypeOf("x.CSV"), "text/csv");
    assert.equal(contentTypeOf("x.bin"), "application/octet-stream");
    await assert.rejects(uploadInvoiceFile(p.client, 1, { fileName: "../x.pdf", content: pdf }), RangeError);
    await assert.rejects(uploadInvoiceFile(p.client, 1, { fileName: "x.pdf", content: Buffer.alloc(0) }), RangeError);
  });

  it("an upload whose answer is lost is found instead of stored twice", async () => {
    const pdf = Buffer.from("%PDF-1.4\n% lost answer\n%%EOF\n");
    p.emu.setFaults({ dropAfterRate: 1, match: { method: "POST", pathPrefix: "/v1/bunits/1/invoicefiles" }, count: 1 });
    const f = await uploadInvoiceFile(p.client, 1, { fileName: "lost.pdf", content: pdf, erpReference: "ERP-L" });
    assert.equal(f.fileName, "lost.pdf");
    assert.equal(p.emu.state().invoiceFiles.filter((x) => x.fileName === "lost.pdf").length, 1);
    assert.equal(p.emu.requests().filter((r) => r.method === "POST" && r.path.startsWith("/v1/bunits/1/invoicefiles")).length, 1);
  });

  it("billing data: every period, a range, forecasts, one period; only for a reseller", async () => {
    const all = await getBillingData(p.client, 1);
    assert.deepEqual(
      all.map((d) => d.period),
      ["2025-01-01", "2025-02-01", "2025-03-01"],
    );
    assert.ok(all.every((d) => d.businessUnitId === 1 && Array.isArray(d.lines) && typeof d.total === "number"));
    assert.deepEqual(
      (await getBillingData(p.client, 1, { from: "2025-02-01", to: "2025-02-28" })).map((d) => d.period),
      ["2025-02-01"],
    );
    const next = await getBillingData(p.client, 1, { includeNext: 2 });
    assert.deepEqual(
      next.map((d) => d.period),
      ["2025-01-01", "2025-02-01", "2025-03-01", "2025-04-01", "2025-05-01"],
    );
    assert.equal(next[3].generatedDate, undefined, "a forecast");
    assert.deepEqual(await getBillingDataFor(p.client, 1, "2025-02-01"), all[1]);
    await assert.rejects(getBillingData(p.client, 2), (err: unknown) => err instanceof PortalError && err.code === "NotReseller");
    await assert.rejects(getBillingDataFor(p.client, 1, "2025-02"), RangeError);
  });
});
