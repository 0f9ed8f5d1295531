// Writing audit log entries: one for every create, modify and delete, and for
// activation, password changes and proxy changes.
import type { Ctx } from "./context";
import type { AuditRec } from "./types";
import { iso } from "./util";

export const AUDIT = { info: 0, create: 100, modify: 200, delete: 300, error: 400 } as const;

/**
 * What `GET /v1/actions` lists (the published Go client reads it as `{createdDate, href, name, id}` items,
 * cloutility/action.go at 3a29ec8; spec 000 does not describe it): here, the actions this emulator writes
 * into the audit log. What the real portal lists there is not public.
 */
export const ACTIONS = ["Create", "Modify", "Delete", "Activate", "ChangePassword", "Move", "AddProxy", "RemoveProxy"] as const;

/** What a handler says about a change; id, time and user are added here. */
export type AuditInput = Omit<AuditRec, "id" | "time" | "user">;

export function audit(ctx: Ctx, entry: AuditInput): void {
  const rec = { id: ctx.store.nextId("audit"), time: iso(), ...entry, user: ctx.auth?.user.username ?? "system" };
  if (rec.consumerId === undefined) delete rec.consumerId;
  ctx.state.auditLogs.push(rec);
  ctx.store.changed();
}
