// Business units: read, children, users, create, update, delete.
import type { Router } from "../router";
import type { Ctx } from "../context";
import type { Input } from "../input";
import type { BusinessUnitRec } from "../types";
import { noContent, ok } from "../context";
import { ApiError, conflict, notFound, validation } from "../errors";
import { goClientRead, requireBu } from "../access";
import { AUDIT, audit } from "../audit";
import { buHref, collection, renderBu, renderUser } from "../views";
import { iso } from "../util";

type Patch = { [K in keyof BusinessUnitRec]?: BusinessUnitRec[K] | null };

function resolveIds(ctx: Ctx, ids: number[] | null | undefined, list: Array<{ id: number }>, field: string): number[] | null | undefined {
  if (!ids) return ids;
  for (const id of ids) if (!list.some((x) => x.id === id)) throw validation(`${field}: ${id} is not a known id`);
  return ids;
}

/** The settable fields present in the body, validated; null clears a field. */
function readFields(ctx: Ctx, input: Input, w: Write): Patch {
  const whole = w !== "merge";
  const p: Patch = {};
  if (whole || input.has("name")) p.name = input.reqString("name", 200);
  if (whole || input.has("registrationNumber")) p.registrationNumber = input.reqString("registrationNumber", 100);
  if (whole || input.has("timeZone")) {
    const tz = input.reqRef("timeZone");
    if (!ctx.state.timeZones.some((t) => t.id === tz)) throw validation(`timeZone.id ${tz} is not a known time zone`);
    p.timeZoneId = tz;
  }
  p.note = input.optString("note", 4000, { multiline: true });
  p.invoiceDay = input.optNumber("invoiceDay", { integer: true, min: 1, max: 31 });
  p.storageLimit = input.optNumber("storageLimit", { min: 0 });
  p.transferLimit = input.optNumber("transferLimit", { min: 0 });
  p.nodeLimit = input.optNumber("nodeLimit", { integer: true, min: 0 });
  p.passwordExpirationDays = input.optNumber("passwordExpirationDays", { integer: true, min: 0 });
  p.supportResponsible = input.optBool("supportResponsible");
  p.reportRemotely = input.optBool("reportRemotely");
  p.useScheduleBindings = input.optBool("useScheduleBindings");
  p.tags = input.optStringArray("tags");
  p.domainFilter = resolveIds(ctx, input.optRefArray("domainFilter"), ctx.state.domains, "domainFilter");
  p.clientOptionSetFilter = resolveIds(
    ctx,
    input.optRefArray("clientOptionSetFilter"),
    ctx.state.clientOptionSets,
    "clientOptionSetFilter",
  );
  // The spec lists billingStorageTypeId and billingStorageType, both integers: one value, taken under either name.
  p.billingStorageTypeId = input.optNumber(input.has("billingStorageTypeId") ? "billingStorageTypeId" : "billingStorageType", {
    integer: true,
    min: 0,
  });
  p.requiredApproversOfDeleteRequest = input.optNumber("requiredApproversOfDeleteRequest", { integer: true, min: 0 });
  p.finalDeleteRequestApprover = input.optBool("finalDeleteRequestApprover");
  p.usersCanApproveOwnRequests = input.optBool("usersCanApproveOwnRequests");
  return p;
}

/**
 * How a body is applied: on create; on a PUT that merges (absent fields keep their value, the default); or on a
 * PUT that replaces (`--put-replaces`: absent optional fields are cleared, required ones must be present), the
 * other reading of the spec's "PUT takes the object".
 */
export type Write = "create" | "merge" | "replace";

export function putWrite(ctx: Ctx): Write {
  return ctx.app.readings.putReplaces ? "replace" : "merge";
}

/** Applies a patch: null deletes; undefined keeps, or deletes when the write replaces. Returns the names of changed fields. */
export function applyPatch<T extends object>(rec: T, patch: { [K in keyof T]?: T[K] | null }, w: Write = "merge"): string[] {
  const changed: string[] = [];
  const target = rec as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined && w !== "replace") continue;
    const before = JSON.stringify(target[k]);
    if (v === null || v === undefined) delete target[k];
    else target[k] = v;
    if (JSON.stringify(target[k]) !== before) changed.push(k);
  }
  return changed;
}

export function register(r: Router): void {
  r.get("/v1/bunits/:bu", (ctx) => ok(renderBu(ctx, requireBu(ctx, ctx.param("bu")))));

  // Not in spec 000: the published Go client's GetBusinessUnit (cloutility/businessunit.go at 3a29ec8) reads a
  // business unit here and decodes `businessUnits` as a plain array of its children, each with a `groupName`.
  // What groupName holds on the real portal is not public; here it is the name of the group the child is in,
  // its parent's.
  r.get("/v1/bunits", (ctx) => {
    goClientRead(ctx);
    const raw = ctx.query.get("bunitID") ?? ctx.query.get("bunitId");
    if (raw === null || !/^\d+$/.test(raw)) throw validation("Query parameter bunitID must be a business unit id");
    const bu = requireBu(ctx, Number(raw));
    const children = ctx.state.businessUnits.filter((b) => b.parentId === bu.id).map((b) => ({ ...renderBu(ctx, b), groupName: bu.name }));
    const parent = bu.parentId !== undefined ? ctx.state.businessUnits.find((b) => b.id === bu.parentId) : undefined;
    return ok({ ...renderBu(ctx, bu), ...(parent ? { groupName: parent.name } : {}), businessUnits: children });
  });

  r.get("/v1/bunits/:bu/bunits", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const items = ctx.state.businessUnits.filter((b) => b.parentId === bu.id).map((b) => renderBu(ctx, b));
    return ok(collection(`${buHref(ctx, bu.id)}/bunits`, items));
  });

  r.get("/v1/bunits/:bu/users", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const items = ctx.state.users.filter((u) => u.businessUnitId === bu.id).map((u) => renderUser(ctx, u));
    return ok(collection(`${buHref(ctx, bu.id)}/users`, items));
  });

  r.get("/v1/bunits/:bu/users/:user", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const u = ctx.state.users.find((x) => x.id === ctx.param("user") && x.businessUnitId === bu.id);
    if (!u) throw notFound(`User ${ctx.param("user")} in business unit ${bu.id}`);
    return ok(renderUser(ctx, u));
  });

  r.post("/v1/bunits/:bu/bunits", (ctx) => {
    const parent = requireBu(ctx, ctx.param("bu"));
    const patch = readFields(ctx, ctx.input(), "create");
    const rec: BusinessUnitRec = {
      id: ctx.store.nextId("businessUnit"),
      createdDate: iso(),
      name: "",
      registrationNumber: "",
      parentId: parent.id,
      timeZoneId: 0,
      isReseller: false,
    };
    applyPatch(rec, patch);
    ctx.state.businessUnits.push(rec);
    audit(ctx, {
      type: AUDIT.create,
      action: "Create",
      objectType: "BusinessUnit",
      objectId: rec.id,
      businessUnitId: rec.id,
      message: `Business unit "${rec.name}" created under ${parent.id}`,
    });
    return ok(renderBu(ctx, rec));
  });

  r.put("/v1/bunits/:bu", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const w = putWrite(ctx);
    const changed = applyPatch(bu, readFields(ctx, ctx.input(), w), w);
    if (changed.length) {
      audit(ctx, {
        type: AUDIT.modify,
        action: "Modify",
        objectType: "BusinessUnit",
        objectId: bu.id,
        businessUnitId: bu.id,
        message: `Business unit modified: ${changed.join(", ")}`,
      });
    }
    return ok(renderBu(ctx, bu));
  });

  r.delete("/v1/bunits/:bu", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const s = ctx.state;
    if (bu.id === ctx.caller.rootBusinessUnitId) {
      throw new ApiError(403, "Forbidden", `Business unit ${bu.id} is the account's own business unit and cannot be deleted`);
    }
    const children = s.businessUnits.filter((b) => b.parentId === bu.id).length;
    const consumers = s.consumers.filter((c) => c.businessUnitId === bu.id).length;
    const users = s.users.filter((u) => u.businessUnitId === bu.id).length;
    if (children || consumers || users) {
      throw conflict(
        "HasChildren",
        `Business unit ${bu.id} has ${children} child business unit(s), ${consumers} consumer(s) and ${users} user(s); remove them first`,
      );
    }
    s.businessUnits = s.businessUnits.filter((b) => b.id !== bu.id);
    s.contracts = s.contracts.filter((x) => x.businessUnitId !== bu.id);
    s.invoices = s.invoices.filter((x) => x.businessUnitId !== bu.id);
    s.invoiceFiles = s.invoiceFiles.filter((x) => x.businessUnitId !== bu.id);
    s.billingData = s.billingData.filter((x) => x.businessUnitId !== bu.id);
    s.subscribers = s.subscribers.filter((x) => x.businessUnitId !== bu.id);
    audit(ctx, {
      type: AUDIT.delete,
      action: "Delete",
      objectType: "BusinessUnit",
      objectId: bu.id,
      businessUnitId: bu.id,
      message: `Business unit "${bu.name}" deleted`,
    });
    return noContent();
  });
}
