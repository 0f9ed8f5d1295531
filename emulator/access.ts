// Finding objects on behalf of the caller: 404 when the id does not exist,
// 403 when it exists outside the account's subtree.
import type { Ctx } from "./context";
import type { BusinessUnitRec, ConsumerRec, NodeRec } from "./types";
import { ApiError, notFound } from "./errors";
import { isWithin } from "./tree";

export function canReach(ctx: Ctx, businessUnitId: number): boolean {
  return isWithin(ctx.state, businessUnitId, ctx.caller.rootBusinessUnitId);
}

/** 403 for an object in business unit `buId`, which the account does not reach. */
export function outside(ctx: Ctx, what: string, buId: number, isTheUnit: boolean): ApiError {
  const root = ctx.caller.rootBusinessUnitId;
  const where = isTheUnit ? `${what} is` : `${what} lies in business unit ${buId},`;
  const msg = isWithin(ctx.state, root, buId)
    ? `${where} an ancestor of the account's business unit ${root}; the account reaches only business unit ${root} and its descendants`
    : `${where} outside the account's business unit ${root} and its descendants`;
  return new ApiError(403, "Forbidden", msg);
}

export function requireBu(ctx: Ctx, id: number): BusinessUnitRec {
  const bu = ctx.state.businessUnits.find((b) => b.id === id);
  if (!bu) throw notFound(`Business unit ${id}`);
  if (!canReach(ctx, bu.id)) throw outside(ctx, `Business unit ${id}`, bu.id, true);
  return bu;
}

/** A consumer reached by the caller, wherever it lives. */
export function reachConsumer(ctx: Ctx, id: number): ConsumerRec {
  const c = ctx.state.consumers.find((x) => x.id === id);
  if (!c) throw notFound(`Consumer ${id}`);
  if (!canReach(ctx, c.businessUnitId)) throw outside(ctx, `Consumer ${id}`, c.businessUnitId, false);
  return c;
}

/** The consumer of `/v1/bunits/{buId}/consumers/{consumerId}`: it must live in that business unit. */
export function requireConsumer(ctx: Ctx, buId: number, consumerId: number): { bu: BusinessUnitRec; consumer: ConsumerRec } {
  const bu = requireBu(ctx, buId);
  const consumer = reachConsumer(ctx, consumerId);
  if (consumer.businessUnitId !== bu.id) throw notFound(`Consumer ${consumerId} in business unit ${buId}`);
  return { bu, consumer };
}

export function nodeOf(ctx: Ctx, consumerId: number): NodeRec | undefined {
  return ctx.state.nodes.find((n) => n.consumerId === consumerId);
}

/** The node of the path's consumer; 404 when the consumer has none. */
export function requireNode(ctx: Ctx, buId: number, consumerId: number): { bu: BusinessUnitRec; consumer: ConsumerRec; node: NodeRec } {
  const { bu, consumer } = requireConsumer(ctx, buId, consumerId);
  const node = nodeOf(ctx, consumer.id);
  if (!node) throw notFound(`The node of consumer ${consumerId}`);
  return { bu, consumer, node };
}

/** `bu`/`consumer` path parameters of the current route. */
export function pathConsumer(ctx: Ctx): { bu: BusinessUnitRec; consumer: ConsumerRec } {
  return requireConsumer(ctx, ctx.param("bu"), ctx.param("consumer"));
}

export function pathNode(ctx: Ctx): { bu: BusinessUnitRec; consumer: ConsumerRec; node: NodeRec } {
  return requireNode(ctx, ctx.param("bu"), ctx.param("consumer"));
}

/** The reads only the published Go client makes (readings.ts, goClientReads): 404 when the reading is "absent". */
export function goClientRead(ctx: Ctx): void {
  if (ctx.app.readings.goClientReads === "absent") throw notFound(`The endpoint ${ctx.method} ${ctx.url.pathname}`);
}
