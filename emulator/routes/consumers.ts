// Consumption units ("consumers"): list, read, create (or move), update, delete.
import type { Router } from "../router";
import type { Ctx } from "../context";
import type { Input } from "../input";
import type { ConsumerRec } from "../types";
import { noContent, ok } from "../context";
import { validation } from "../errors";
import { qBool, qString } from "../input";
import { nodeOf, pathConsumer, reachConsumer, requireBu } from "../access";
import { AUDIT, audit } from "../audit";
import { buHref, collection, renderConsumer } from "../views";
import { iso } from "../util";
import { applyPatch, putWrite, Write } from "./bunits";

type Patch = { [K in keyof ConsumerRec]?: ConsumerRec[K] | null };

function readFields(input: Input, w: Write): Patch {
  const creating = w === "create";
  const p: Patch = {};
  if (w !== "merge" || input.has("name")) p.name = input.reqString("name", 200);
  p.note = input.optString("note", 4000, { multiline: true });
  p.tags = input.optStringArray("tags");
  p.limitHighStorage = input.optNumber("limitHighStorage", { min: 0 });
  p.allowNoActivity = input.optBool("allowNoActivity");
  const billingStart = input.optDate("billingStartDate");
  if (billingStart === null && !creating) throw validation("billingStartDate cannot be cleared");
  if (typeof billingStart === "number") p.billingStartDate = iso(billingStart);
  return p;
}

/** Removes a consumer, its node, proxy relations and activity; writes the audit entries. */
export function removeConsumer(ctx: Ctx, consumer: ConsumerRec, message: string): void {
  const s = ctx.state;
  const node = nodeOf(ctx, consumer.id);
  if (node) {
    s.nodes = s.nodes.filter((n) => n.id !== node.id);
    audit(ctx, {
      type: AUDIT.delete,
      action: "Delete",
      objectType: "Node",
      objectId: node.id,
      businessUnitId: consumer.businessUnitId,
      consumerId: consumer.id,
      message: `Node${node.tsmName ? ` ${node.tsmName}` : ""} deleted`,
    });
  }
  s.proxies = s.proxies.filter((p) => p.agentConsumerId !== consumer.id && p.targetConsumerId !== consumer.id);
  s.jobs = s.jobs.filter((j) => j.consumerId !== consumer.id);
  s.reports = s.reports.filter((r) => r.consumerId !== consumer.id);
  s.filespaces = s.filespaces.filter((f) => f.consumerId !== consumer.id);
  s.consumers = s.consumers.filter((c) => c.id !== consumer.id);
  audit(ctx, {
    type: AUDIT.delete,
    action: "Delete",
    objectType: "Consumer",
    objectId: consumer.id,
    businessUnitId: consumer.businessUnitId,
    consumerId: consumer.id,
    message,
  });
}

export function register(r: Router): void {
  r.get("/v1/bunits/:bu/consumers", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const items = ctx.state.consumers.filter((c) => c.businessUnitId === bu.id).map((c) => renderConsumer(ctx, c));
    return ok(collection(`${buHref(ctx, bu.id)}/consumers`, items));
  });

  r.get("/v1/bunits/:bu/consumers/:consumer", (ctx) => ok(renderConsumer(ctx, pathConsumer(ctx).consumer)));

  r.post("/v1/bunits/:bu/consumers", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const input = ctx.input();
    // Posting an existing consumer (by id) to another business unit moves it (as the real portal does).
    const rawId = input.raw("id");
    const existingId = typeof rawId === "number" ? rawId : typeof rawId === "string" && /^\d+$/.test(rawId) ? Number(rawId) : undefined;
    if (existingId !== undefined && ctx.state.consumers.some((c) => c.id === existingId)) {
      const consumer = reachConsumer(ctx, existingId);
      if (consumer.businessUnitId !== bu.id) {
        const from = consumer.businessUnitId;
        consumer.businessUnitId = bu.id;
        audit(ctx, {
          type: AUDIT.modify,
          action: "Move",
          objectType: "Consumer",
          objectId: consumer.id,
          businessUnitId: bu.id,
          consumerId: consumer.id,
          message: `Consumer moved from business unit ${from} to ${bu.id}`,
        });
      }
      return ok(renderConsumer(ctx, consumer));
    }
    const patch = readFields(input, "create");
    const now = iso();
    const rec: ConsumerRec = { id: ctx.store.nextId("consumer"), createdDate: now, name: "", businessUnitId: bu.id, billingStartDate: now };
    applyPatch(rec, patch);
    ctx.state.consumers.push(rec);
    audit(ctx, {
      type: AUDIT.create,
      action: "Create",
      objectType: "Consumer",
      objectId: rec.id,
      businessUnitId: bu.id,
      consumerId: rec.id,
      message: `Consumer "${rec.name}" created`,
    });
    return ok(renderConsumer(ctx, rec));
  });

  r.put("/v1/bunits/:bu/consumers/:consumer", (ctx) => {
    const { consumer } = pathConsumer(ctx);
    const w = putWrite(ctx);
    const changed = applyPatch(consumer, readFields(ctx.input(), w), w);
    if (changed.length) {
      audit(ctx, {
        type: AUDIT.modify,
        action: "Modify",
        objectType: "Consumer",
        objectId: consumer.id,
        businessUnitId: consumer.businessUnitId,
        consumerId: consumer.id,
        message: `Consumer modified: ${changed.join(", ")}`,
      });
    }
    return ok(renderConsumer(ctx, consumer));
  });

  r.delete("/v1/bunits/:bu/consumers/:consumer", (ctx) => {
    const { consumer } = pathConsumer(ctx);
    const deleteAssociations = qBool(ctx.query, "deleteAssociations") ?? true;
    const unassign = qBool(ctx.query, "unassignSecondaryDataSources") ?? false;
    const comment = qString(ctx.query, "deletionComment");
    if (comment !== undefined && comment.length > 1000) throw validation("deletionComment must be at most 1000 characters");
    const details = [`deleteAssociations=${deleteAssociations}`, `unassignSecondaryDataSources=${unassign}`];
    const message = `Consumer "${consumer.name}" deleted (${details.join(", ")})${comment ? `: ${comment}` : ""}`;
    removeConsumer(ctx, consumer, message);
    return noContent();
  });
}
