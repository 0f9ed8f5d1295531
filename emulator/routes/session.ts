// Token, version, the logged-in user and the actions: POST /v1/oauth, GET /v1/fullVersion, GET /v1/me,
// GET /v1/actions and /v1/actions/{id} (not in spec 000; the Go client reads them: readings.ts, goClientReads).
import type { Router } from "../router";
import { ok, type Ctx } from "../context";
import { notFound } from "../errors";
import { REF_DATE } from "../seed";
import { tokenRequest } from "../auth";
import { buHref, collection } from "../views";
import { ACTIONS } from "../audit";
import { goClientRead } from "../access";

export function register(r: Router): void {
  r.post("/v1/oauth", tokenRequest, { auth: false });
  r.get("/v1/fullVersion", (ctx) => ok(ctx.state.fullVersion), { auth: false });
  r.get("/v1/me", (ctx) => {
    const { user } = ctx.caller;
    const bu = ctx.state.businessUnits.find((b) => b.id === user.businessUnitId);
    return ok({
      href: `${ctx.baseUrl}/v1/me`,
      id: user.id,
      username: user.username,
      // The published Go client reads the user as `name` (cloutility/user.go at 3a29ec8): both are served.
      name: user.name ?? user.username,
      businessUnit: { href: buHref(ctx, user.businessUnitId), id: user.businessUnitId, name: bu?.name },
    });
  });

  r.get("/v1/actions", (ctx) => {
    goClientRead(ctx);
    return ok(
      collection(
        `${ctx.baseUrl}/v1/actions`,
        ACTIONS.map((_, i) => renderAction(ctx, i + 1)),
        { offset: 0 },
      ),
    );
  });
  r.get("/v1/actions/:action", (ctx) => {
    goClientRead(ctx);
    const id = ctx.param("action");
    if (id < 1 || id > ACTIONS.length) throw notFound(`Action ${id}`);
    return ok(renderAction(ctx, id));
  });
}

function renderAction(ctx: Ctx, id: number): Record<string, unknown> {
  return { href: `${ctx.baseUrl}/v1/actions/${id}`, id, createdDate: REF_DATE, name: ACTIONS[id - 1] };
}
