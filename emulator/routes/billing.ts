// Billing: contract, invoices, invoice files and reseller billing data.
import type { Router } from "../router";
import type { Ctx } from "../context";
import type { BusinessUnitRec, InvoiceFileRec } from "../types";
import { ok } from "../context";
import { notFound, validation } from "../errors";
import { qBool, qInt, qString } from "../input";
import { requireBu } from "../access";
import { forecasts } from "../billing";
import { buHref, collection, renderBillingData, renderInvoice, renderInvoiceFile } from "../views";
import { isDateString, iso } from "../util";
import { formBoundary, parseForm } from "../multipart";

/**
 * The uploaded invoice file: a multipart/form-data body's file part (as ASP.NET uploads usually are), or
 * the raw body with its name in X-File-Name.
 */
function uploadedFile(ctx: Ctx): { fileName: string; contentType: string; content: Buffer } {
  const boundary = formBoundary(ctx.header("content-type"));
  if (boundary === undefined) {
    return {
      fileName: ctx.header("x-file-name")?.trim() || "invoice",
      contentType: ctx.header("content-type") ?? "application/octet-stream",
      content: ctx.body,
    };
  }
  const file = parseForm(ctx.body, boundary).find((p) => p.filename !== undefined);
  if (!file) throw validation("The multipart body has no file part (a part with a filename)");
  return {
    fileName: file.filename?.trim() || "invoice",
    contentType: file.contentType ?? "application/octet-stream",
    content: file.content,
  };
}

export const MAX_INCLUDE_NEXT = 24;

function dateParam(ctx: Ctx): string {
  const date = ctx.params.date;
  if (!isDateString(date)) throw validation("The date in the path must be YYYY-MM-DD");
  return date;
}

export function requireReseller(bu: BusinessUnitRec): void {
  if (!bu.isReseller) throw validation(`Business unit ${bu.id} is not a reseller; billing data exists only for resellers`, "NotReseller");
}

export function register(r: Router): void {
  r.get("/v1/bunits/:bu/contract", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const c = ctx.state.contracts.find((x) => x.businessUnitId === bu.id);
    if (!c) throw notFound(`The contract of business unit ${bu.id}`);
    return ok({
      href: `${buHref(ctx, bu.id)}/contract`,
      id: c.id,
      createdDate: c.createdDate,
      name: c.name,
      startDate: c.startDate,
      currency: c.currency,
    });
  });

  r.get("/v1/bunits/:bu/invoices", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const items = ctx.state.invoices
      .filter((i) => i.businessUnitId === bu.id)
      .sort((a, b) => a.date.localeCompare(b.date))
      .map((i) => renderInvoice(ctx, i));
    return ok(collection(`${buHref(ctx, bu.id)}/invoices`, items));
  });

  r.get("/v1/bunits/:bu/invoices/:date", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const date = dateParam(ctx);
    const inv = ctx.state.invoices.find((i) => i.businessUnitId === bu.id && i.date === date);
    if (!inv) throw notFound(`The invoice of ${date} of business unit ${bu.id}`);
    return ok(renderInvoice(ctx, inv));
  });

  r.get("/v1/bunits/:bu/invoicefiles", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const items = ctx.state.invoiceFiles.filter((f) => f.businessUnitId === bu.id).map(renderInvoiceFile);
    return ok(collection(`${buHref(ctx, bu.id)}/invoicefiles`, items));
  });

  r.post("/v1/bunits/:bu/invoicefiles", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const erpReference = qString(ctx.query, "erpReference");
    if (erpReference !== undefined && erpReference.length > 200) throw validation("erpReference must be at most 200 characters");
    const sendToBillingAddress = qBool(ctx.query, "sendToBillingAddress") ?? false;
    const { fileName, contentType, content } = uploadedFile(ctx);
    if (content.length === 0) throw validation("The file content is required");
    if (fileName.length > 255 || /[\/\\]/.test(fileName))
      throw validation("The file name must be a plain file name of at most 255 characters");
    const rec: InvoiceFileRec = {
      id: ctx.store.nextId("invoiceFile"),
      businessUnitId: bu.id,
      fileName,
      contentType,
      size: content.length,
      sendToBillingAddress,
      uploadedDate: iso(),
      contentBase64: content.toString("base64"),
    };
    if (erpReference) rec.erpReference = erpReference;
    ctx.state.invoiceFiles.push(rec);
    ctx.store.changed();
    return ok(renderInvoiceFile(rec));
  });

  r.get("/v1/bunits/:bu/billing", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    requireReseller(bu);
    const includeNext = qInt(ctx.query, "includeNext", 0, MAX_INCLUDE_NEXT) ?? 0;
    const items = ctx.state.billingData
      .filter((b) => b.businessUnitId === bu.id)
      .sort((a, b) => a.period.localeCompare(b.period))
      .map((b) => renderBillingData(ctx, b));
    for (const f of forecasts(ctx.state, bu.id, includeNext)) items.push(renderBillingData(ctx, f));
    return ok(collection(`${buHref(ctx, bu.id)}/billing`, items));
  });

  r.get("/v1/bunits/:bu/billing/:date", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    requireReseller(bu);
    const date = dateParam(ctx);
    const b = ctx.state.billingData.find((x) => x.businessUnitId === bu.id && x.period === date);
    if (!b) throw notFound(`The billing data of ${date} of business unit ${bu.id}`);
    return ok(renderBillingData(ctx, b));
  });
}
