// Billing of a business unit: contract, invoices, invoice files and reseller billing data.
import { PortalCore, bunitPath } from "./core";
import { itemsOf } from "./collections";
import { BillingData, Collection, Contract, Invoice, InvoiceFile } from "./types";
import { multipartBody } from "./multipart";
import { Body } from "./transport";

/**
 * How an invoice file is sent: "multipart" (multipart/form-data with one part `file`, as ASP.NET uploads
 * usually are; the default) or "raw" (the file as the body, its name in an X-File-Name header).
 */
export type UploadForm = "multipart" | "raw";

export interface InvoiceUpload {
  fileName: string;
  content: Buffer;
  contentType?: string;
  erpReference?: string;
  sendToBillingAddress?: boolean;
  /** Default "multipart". */
  form?: UploadForm;
}

/** The `YYYY-MM-DD` date of an invoice, taken from its href as the spec says. */
export function invoiceDate(invoice: Invoice): string | undefined {
  const m = /(\d{4}-\d{2}-\d{2})\/?$/.exec(invoice.href ?? "");
  return m?.[1] ?? invoice.date?.slice(0, 10);
}

export class Billing {
  constructor(private readonly core: PortalCore) {}

  contract(bunitId: number): Promise<Contract> {
    return this.core.get(bunitPath(bunitId, "/contract"));
  }

  async invoices(bunitId: number): Promise<Invoice[]> {
    return itemsOf(await this.core.get<Collection<Invoice>>(bunitPath(bunitId, "/invoices")));
  }

  invoice(bunitId: number, date: string): Promise<Invoice> {
    return this.core.get(bunitPath(bunitId, `/invoices/${encodeURIComponent(date)}`));
  }

  async invoiceFiles(bunitId: number): Promise<InvoiceFile[]> {
    return itemsOf(await this.core.get<Collection<InvoiceFile>>(bunitPath(bunitId, "/invoicefiles")));
  }

  uploadInvoiceFile(bunitId: number, file: InvoiceUpload): Promise<InvoiceFile> {
    const contentType = file.contentType ?? "application/pdf";
    const form = file.form ?? "multipart";
    let body: Body = { raw: file.content, contentType, headers: { "X-File-Name": file.fileName } };
    if (form === "multipart") {
      const multi = multipartBody({ field: "file", fileName: file.fileName, contentType, content: file.content });
      body = { raw: multi.body, contentType: multi.contentType };
    }
    return this.core.call({
      method: "POST",
      path: bunitPath(bunitId, "/invoicefiles"),
      query: { erpReference: file.erpReference, sendToBillingAddress: file.sendToBillingAddress ?? false },
      body,
    });
  }

  /** Billing data periods (reseller business units only); `includeNext` adds upcoming periods. */
  async billingData(bunitId: number, includeNext?: number): Promise<BillingData[]> {
    return itemsOf(await this.core.get<Collection<BillingData>>(bunitPath(bunitId, "/billing"), { includeNext }));
  }

  billingDataFor(bunitId: number, date: string): Promise<BillingData> {
    return this.core.get(bunitPath(bunitId, `/billing/${encodeURIComponent(date)}`));
  }
}
