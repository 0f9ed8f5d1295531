// Token, version and the logged-in user: POST /v1/oauth, GET /v1/fullVersion, GET /v1/me.
import type { Router } from "../router";
import { ok } from "../context";
import { tokenRequest } from "../auth";
import { buHref } from "../views";

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
      businessUnit: { href: buHref(ctx, user.businessUnitId), id: user.businessUnitId, name: bu?.name },
    });
  });
}
