// Reference data: time zones (and their offset action), operating systems,
// node types, node warning types, and the default backup server with its
// domains and client option sets.
import type { Router } from "../router";
import type { Ctx } from "../context";
import { ok } from "../context";
import { notFound, validation } from "../errors";
import { qString } from "../input";
import { requireBu } from "../access";
import { collection, renderClientOptionSet, renderDomain, renderNodeType, renderOs, renderServer, renderTimeZone } from "../views";
import { parseIsoDate } from "../util";
import type { ServerRec } from "../types";

/** Offset from UTC in minutes of an IANA zone at an instant. */
export function offsetMinutes(ianaZone: string, at: number): number {
  const part =
    new Intl.DateTimeFormat("en-US", { timeZone: ianaZone, timeZoneName: "longOffset" })
      .formatToParts(new Date(at))
      .find((p) => p.type === "timeZoneName")?.value ?? "GMT";
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
    ok(
      collection(
        `${ctx.baseUrl}/v1/timezones`,
        ctx.state.timeZones.map((tz) => renderTimeZone(ctx, tz)),
      ),
    ),
  );
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
    ok(
      collection(
        `${ctx.baseUrl}/v1/nodeoperatingsystems`,
        ctx.state.operatingSystems.map((o) => renderOs(ctx, o)),
      ),
    ),
  );
  r.get("/v1/nodeoperatingsystems/:os", (ctx) => {
    const os = ctx.state.operatingSystems.find((o) => o.id === ctx.param("os"));
    if (!os) throw notFound(`Operating system ${ctx.param("os")}`);
    return ok(renderOs(ctx, os));
  });

  r.get("/v1/nodetypes", (ctx) =>
    ok(
      collection(
        `${ctx.baseUrl}/v1/nodetypes`,
        ctx.state.nodeTypes.map((t) => renderNodeType(ctx, t)),
      ),
    ),
  );
  r.get("/v1/nodetypes/:type", (ctx) => {
    const t = ctx.state.nodeTypes.find((x) => x.id === ctx.param("type"));
    if (!t) throw notFound(`Node type ${ctx.param("type")}`);
    return ok(renderNodeType(ctx, t));
  });

  r.get("/v1/nodewarningtypes", (ctx) =>
    ok(
      collection(
        `${ctx.baseUrl}/v1/nodewarningtypes`,
        ctx.state.warningTypes.map((w) => ({ ...w })),
      ),
    ),
  );

  r.get("/v1/bunits/:bu/defaultserver", (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    return ok(renderServer(ctx, bu.id, defaultServer(ctx)));
  });
  serverCollection(r, "domains", "domain", "Domain", (ctx) => ctx.state.domains, renderDomain);
  serverCollection(r, "clientoptionsets", "cos", "Client option set", (ctx) => ctx.state.clientOptionSets, renderClientOptionSet);
}

/** A list of the default server's objects under a business unit (domains, client option sets), and one item of it. */
function serverCollection<T extends { id: number; serverId: number }>(
  r: Router,
  segment: string,
  param: string,
  what: string,
  all: (ctx: Ctx) => T[],
  render: (ctx: Ctx, buId: number, item: T) => unknown,
): void {
  const path = `/v1/bunits/:bu/defaultserver/${segment}`;
  r.get(path, (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const server = defaultServer(ctx);
    const items = all(ctx)
      .filter((x) => x.serverId === server.id)
      .map((x) => render(ctx, bu.id, x));
    return ok(collection(`${ctx.baseUrl}/v1/bunits/${bu.id}/defaultserver/${segment}`, items));
  });
  r.get(`${path}/:${param}`, (ctx) => {
    const bu = requireBu(ctx, ctx.param("bu"));
    const server = defaultServer(ctx);
    const item = all(ctx).find((x) => x.id === ctx.param(param) && x.serverId === server.id);
    if (!item) throw notFound(`${what} ${ctx.param(param)}`);
    return ok(render(ctx, bu.id, item));
  });
}
