// Whether the portal serves the reads the published Go client makes beyond spec 000
// (safespring-community/cloutility-api-client at 3a29ec8): GetBusinessUnit's
// `GET /v1/bunits?bunitID=` (children as a plain array, cloutility/businessunit.go) and
// GetActions/GetAction's `GET /v1/actions`, `/v1/actions/{id}` (cloutility/action.go).
// Nothing the providers do needs them: a portal without them "differs", never fails.
import { PortalError } from "../portal/errors";
import type { ReadContext } from "./read-checks";

const WHY = "not in the API documentation; the published Go client reads it; nothing the providers do needs it";

function notServed(err: unknown): boolean {
  return err instanceof PortalError && (err.status === 404 || err.status === 405);
}

/** `go-bunit-read` and `go-actions`: one line each, ok when served, differs when the portal has no such read. */
export async function checkGoClientReads(c: ReadContext, bunit: number): Promise<void> {
  try {
    const { unit, children } = await c.client.businessUnits.withChildren(bunit);
    const shape = Array.isArray(unit.businessUnits) ? "a plain array" : unit.businessUnits ? "a collection" : "absent";
    c.checks.ok(
      "go-bunit-read",
      `GET /v1/bunits?bunitID=${bunit} is served (${WHY}): ${children.length} child business unit(s), businessUnits ${shape}`,
      "served",
    );
  } catch (err) {
    if (notServed(err)) c.checks.differs("go-bunit-read", `GET /v1/bunits?bunitID=${bunit} is not served (${WHY})`, "not served");
    else c.checks.skipped("go-bunit-read", `GET /v1/bunits?bunitID=${bunit}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const actions = await c.client.reference.actions();
    // GetAction reads one by id: the first listed, when there is one.
    if (actions.length > 0) await c.client.reference.action(actions[0].id);
    c.checks.ok(
      "go-actions",
      `GET /v1/actions is served (${WHY}): ${actions.length} action(s)${actions.length ? `, /v1/actions/${actions[0].id} too` : ""}`,
      "served",
    );
  } catch (err) {
    if (notServed(err)) c.checks.differs("go-actions", `GET /v1/actions is not served (${WHY})`, "not served");
    else c.checks.skipped("go-actions", `GET /v1/actions: ${err instanceof Error ? err.message : String(err)}`);
  }
}
