// Reference data: time zones (and their offset action), operating systems,
// node types, node warning types, and the default backup server with its
// domains and client option sets.
import type { Router } from "../router";
import type { Ctx } from "../context";
import { ok } from "../context";
import { notFound, validation } from "../errors";
import { qString } from "../input";
import { requireBu } from "../access";
import {
  collection, renderClientOptionSet, renderDomain, renderNodeType, renderOs, renderServer, renderTimeZone,
} from "../views";
import { parseIsoDate } from "../util";
import type { ServerRec } from "../types";

/** Offset from UTC in minutes of an IANA zone at an instant. */
export function offsetMinutes(ianaZone: string, at: number): number {
  const part = new Intl.DateTimeFormat("en-US", { timeZone: ianaZone, timeZoneName: "longOffset" })
    .formatToParts(new Date(at)).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /GMT([+-])(\d{2}):?(\d{2})?/.exec(part);
  if (!m) return 0;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

export function defaultServer(ctx: Ctx): ServerRec {
  const s = ctx.state.servers.find((x) => x.isDefault) ?? ctx.state.servers[0];
  if (!s) throw notFound("The default backup server");
  return s;
}

export function register(r: Router): void {
  r.get("/v1/timezones", (ctx) =>
    ok(collection(`${ctx.baseUrl}/v1/timezones`, ctx.state.timeZones.map((tz) => renderTimeZone(ctx, tz)))));
  r.get("/v1/timezones/:tz", (ctx) => {
    const tz = ctx.state.timeZones.find((t) => t.id === ctx.param("tz"));
    if (!tz) throw notFound(`Time zone ${ctx.param("tz")}`);
    return ok(renderTimeZone(ctx, tz));
  });
  r.get("/v1/timezones/:tz/offset", (ctx) => {
    const tz = ctx.state.timeZones.find((t) => t.id === ctx.param("tz"));
    if (!tz) throw notFound(`Time zone ${ctx.param("tz")}`);
    const date = qString(ctx.query, "date");
    let at = Date.now();
    if (date !== undefined && date !== "") {
      const ms = parseIsoDate(date);
      if (ms === undefined) throw validation("Query parameter date must be an ISO 8601 date or timestamp");
      at = ms;
    }
    return ok({ offset: offsetMinutes(tz.iana, at) });
  });

  r.get("/v1/nodeoperatingsystems", (ctx) =>
    ok(collection(`${ctx.baseUrl}/v1/nodeoperatingsystems`, ctx.state.operatingSystems.map((o) => renderOs(ctx, o)))));
  r.get("/v1/nodeoperatingsystems/:os", (ctx) => {
    const os = ctx.state.operatingSystems.find((o) => o.id === ctx.param("os"));
    if (!os) throw notFound(`Operating system ${ctx.param("os")}`);
    return ok(renderOs(ctx, os));
  });

  r.get("/v1/nodetypes", (ctx) =>
    ok(collection(`${ctx.baseUrl}/v1/nodetypes`, ctx.state.nodeTypes.map((t) => renderNodeType(ctx, t)))));
  r.get("/v1/nodetypes/:type", (ctx) => {
    const t = ctx.state.nodeTypes.find((x) => x.id === ctx.param("type"));
    if (!t) throw notFound(`Node type ${ctx.param("type")}`);
    return ok(renderNodeType(ctx, t));
  });

  r.get("/v1/nodewarningtypes", (ctx) =>
    ok(collection(`${ctx.baseUrl}/v1/nodewarningtypes`, ctx.state.warningTypes.map((w) => ({ ...w })))));

  r.get("/v1/bunits/:bu/defaultserver", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    return ok(renderServer(ctx, bu.id, defaultServer(ctx)));
  });
  r.get("/v1/bunits/:bu/defaultserver/domains", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const server = defaultServer(ctx);
    const items = ctx.state.domains.filter((d) => d.serverId === server.id).map((d) => renderDomain(ctx, bu.id, d));
    return ok(collection(`${ctx.baseUrl}/v1/bunits/${bu.id}/defaultserver/domains`, items));
  });
  r.get("/v1/bunits/:bu/defaultserver/domains/:domain", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const server = defaultServer(ctx);
    const d = ctx.state.domains.find((x) => x.id === ctx.param("domain") && x.serverId === server.id);
    if (!d) throw notFound(`Domain ${ctx.param("domain")}`);
    return ok(renderDomain(ctx, bu.id, d));
  });
  r.get("/v1/bunits/:bu/defaultserver/clientoptionsets", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const server = defaultServer(ctx);
    const items = ctx.state.clientOptionSets.filter((c) => c.serverId === server.id).map((c) => renderClientOptionSet(ctx, bu.id, c));
    return ok(collection(`${ctx.baseUrl}/v1/bunits/${bu.id}/defaultserver/clientoptionsets`, items));
  });
  r.get("/v1/bunits/:bu/defaultserver/clientoptionsets/:cos", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const server = defaultServer(ctx);
    const c = ctx.state.clientOptionSets.find((x) => x.id === ctx.param("cos") && x.serverId === server.id);
    if (!c) throw notFound(`Client option set ${ctx.param("cos")}`);
    return ok(renderClientOptionSet(ctx, bu.id, c));
  });
}
