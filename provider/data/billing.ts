// Billing of a business unit for programs and scripts: contract, invoices, invoice files
// (listing and upload) and reseller billing data.
import * as fs from "fs";
import { promises as fsp } from "fs";
import * as path from "path";
import { PortalClient } from "../portal/client";
import { PortalError } from "../portal/errors";
import { invoiceDate, InvoiceUpload, UploadForm } from "../portal/billing";
import { BillingData, Contract, Invoice, InvoiceFile } from "../portal/types";
import { DateInput, toDay } from "./dates";

function bunit(id: number): number {
  if (!Number.isSafeInteger(id) || id < 1) throw new RangeError(`business unit id must be a positive integer, got ${id}`);
  return id;
}

export async function getContract(client: PortalClient, bunitId: number): Promise<Contract> {
  return client.billing.contract(bunit(bunitId));
}

/** An invoice with its `YYYY-MM-DD` date (taken from its href, as the spec says). */
export type DatedInvoice = Invoice & { date: string };

function dated(inv: Invoice): DatedInvoice {
  return { ...inv, date: invoiceDate(inv) ?? inv.date ?? "" };
}

/** Invoices of a business unit, oldest first; `from`/`to` (days, inclusive) narrow them. */
export async function getInvoices(
  client: PortalClient,
  bunitId: number,
  range: { from?: DateInput; to?: DateInput } = {},
): Promise<DatedInvoice[]> {
  const from = range.from !== undefined ? toDay(range.from) : undefined;
  const to = range.to !== undefined ? toDay(range.to) : undefined;
  const list = (await client.billing.invoices(bunit(bunitId))).map(dated);
  return list.filter((i) => (!from || i.date >= from) && (!to || i.date <= to)).sort((a, b) => a.date.localeCompare(b.date));
}

/** One invoice by its date `YYYY-MM-DD` (or an invoice whose href carries it). */
export async function getInvoice(client: PortalClient, bunitId: number, date: DateInput | Invoice): Promise<DatedInvoice> {
  const day = typeof date === "object" && !(date instanceof Date) ? invoiceDate(date) : toDay(date);
  if (!day) throw new RangeError("the invoice has no date in its href");
  return dated(await client.billing.invoice(bunit(bunitId), day));
}

export async function getInvoiceFiles(client: PortalClient, bunitId: number): Promise<InvoiceFile[]> {
  return client.billing.invoiceFiles(bunit(bunitId));
}

const CONTENT_TYPES: Record<string, string> = {
  ".pdf": "application/pdf",
  ".xml": "application/xml",
  ".csv": "text/csv",
  ".txt": "text/plain",
  ".json": "application/json",
  ".html": "text/html",
  ".zip": "application/zip",
};

/** A content type from a file name's extension (application/octet-stream when unknown). */
export function contentTypeOf(fileName: string): string {
  return CONTENT_TYPES[path.extname(fileName).toLowerCase()] ?? "application/octet-stream";
}

export interface InvoiceFileFromPath {
  /** The file to upload. */
  path: string;
  /** Name in the portal; default the file's base name. */
  fileName?: string;
  contentType?: string;
  erpReference?: string;
  sendToBillingAddress?: boolean;
  /** "multipart" (default) or "raw" (the file as the body, its name in X-File-Name). */
  form?: UploadForm;
}

/**
 * Uploads an invoice file (usually a PDF), from memory or from a path. An upload is not safe to
 * repeat blindly (it would store the file twice), so when the answer is lost the function looks
 * for a file of the same name and size uploaded since it started before giving up.
 */
export async function uploadInvoiceFile(
  client: PortalClient,
  bunitId: number,
  file: InvoiceUpload | InvoiceFileFromPath,
): Promise<InvoiceFile> {
  bunit(bunitId);
  let upload: InvoiceUpload;
  if ("path" in file) {
    const content = await readInvoiceFile(file.path);
    const fileName = file.fileName ?? path.basename(file.path);
    upload = {
      fileName,
      content,
      contentType: file.contentType ?? contentTypeOf(fileName),
      erpReference: file.erpReference,
      sendToBillingAddress: file.sendToBillingAddress,
      form: file.form,
    };
  } else {
    upload = { ...file, contentType: file.contentType ?? contentTypeOf(file.fileName) };
  }
  if (!upload.fileName || /[\/\\]/.test(upload.fileName))
    throw new RangeError(`fileName must be a plain file name, got ${JSON.stringify(upload.fileName)}`);
  if (upload.content.length === 0) throw new RangeError("the file is empty");
  const started = Date.now();
  try {
    return await client.billing.uploadInvoiceFile(bunitId, upload);
  } catch (err) {
    if (!(err instanceof PortalError) || !err.outcomeUnknown) throw err;
    // Clocks differ: allow a minute of skew between us and the portal.
    const since = started - 60_000;
    const files = await client.billing.invoiceFiles(bunitId).catch(() => []);
    const found = files.filter(
      (f) =>
        f.fileName === upload.fileName &&
        f.size === upload.content.length &&
        (f.erpReference ?? undefined) === (upload.erpReference || undefined) &&
        (!f.uploadedDate || Date.parse(f.uploadedDate) >= since),
    );
    if (found.length === 1) return found[0];
    throw err;
  }
}

/** The most forecast periods the portal computes (`includeNext` 0 to 24). */
export const MAX_INCLUDE_NEXT = 24;

/**
 * The largest invoice file uploaded: IIS refuses a request over 30,000,000 bytes by default
 * (maxAllowedContentLength), and the multipart envelope and headers must fit beside the file.
 */
export const MAX_INVOICE_FILE_BYTES = 25 * 1024 * 1024;

/** Why a file cannot be an invoice file (not a regular file, empty, too large), or undefined when it can. */
export function invoiceFileProblem(st: fs.Stats): string | undefined {
  if (!st.isFile()) return "is not a regular file (a device, pipe or directory is never read)";
  if (st.size === 0) return "is empty";
  if (st.size > MAX_INVOICE_FILE_BYTES)
    return `has ${st.size} bytes, more than the ${MAX_INVOICE_FILE_BYTES} bytes (25 MiB) an upload may carry`;
  return undefined;
}

/**
 * The content of an invoice file, its type and size checked before a byte is read, and the read bounded by
 * that size (a file that grows meanwhile is refused, never read without end). Opened non-blocking, so that a
 * pipe swapped in after the check cannot hang the open.
 */
export async function readInvoiceFile(file: string): Promise<Buffer> {
  const before = invoiceFileProblem(await fsp.stat(file));
  if (before) throw new RangeError(`${file} ${before}`);
  const handle = await fsp.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = await handle.stat();
    const problem = invoiceFileProblem(st);
    if (problem) throw new RangeError(`${file} ${problem}`);
    const buf = Buffer.alloc(st.size + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > st.size) throw new RangeError(`${file} grew while it was read; upload it when it is complete`);
    }
    return buf.subarray(0, n);
  } finally {
    await handle.close();
  }
}

export interface BillingDataQuery {
  /** First period (inclusive, YYYY-MM-DD). */
  from?: DateInput;
  /** Last period (inclusive). */
  to?: DateInput;
  /** Also the next N forecast periods (not generated yet; no generatedDate). */
  includeNext?: number;
}

/** Billing data periods of a reseller business unit, oldest first. */
export async function getBillingData(client: PortalClient, bunitId: number, q: BillingDataQuery = {}): Promise<BillingData[]> {
  if (q.includeNext !== undefined && (!Number.isSafeInteger(q.includeNext) || q.includeNext < 0 || q.includeNext > MAX_INCLUDE_NEXT))
    throw new RangeError(`includeNext must be an integer from 0 to ${MAX_INCLUDE_NEXT}, got ${q.includeNext}`);
  const from = q.from !== undefined ? toDay(q.from) : undefined;
  const to = q.to !== undefined ? toDay(q.to) : undefined;
  const list = await client.billing.billingData(bunit(bunitId), q.includeNext || undefined);
  const day = (d: BillingData) => (typeof d.period === "string" ? d.period.slice(0, 10) : "");
  return list.filter((d) => (!from || day(d) >= from) && (!to || day(d) <= to)).sort((a, b) => day(a).localeCompare(day(b)));
}

/** The billing data of one period (`YYYY-MM-DD`). */
export async function getBillingDataFor(client: PortalClient, bunitId: number, period: DateInput): Promise<BillingData> {
  return client.billing.billingDataFor(bunit(bunitId), toDay(period));
}
