// The control API under /_emulator/ (no auth; not part of the portal): request
// log, reset, faults, forced token expiry, billing subscribers and events, the
// state dump, and the process that serves it.
import { Router } from "./router";
import type { Ctx } from "./context";
import type { App } from "./context";
import type { Faults } from "./faults";
import type { RequestLogEntry } from "./types";
import type { RequestDetails } from "./request-details";
import { noContent, ok } from "./context";
import { validation } from "./errors";
import { isObject } from "./input";
import { expireAllTokens } from "./auth";
import { addSubscriber, generateAndNotify, removeSubscriber, sendTest } from "./subscribers";

/** What the control API acts on. */
export interface ControlTarget {
  app: App;
  faults: Faults;
  requests(): RequestLogEntry[];
  requestDetails(): RequestDetails[];
  clearRequests(): void;
  reset(): void;
}

function jsonBody(ctx: Ctx): Record<string, unknown> {
  const text = ctx.body.toString("utf8").trim();
  if (text === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw validation("The body is not valid JSON");
  }
  if (!isObject(v)) throw validation("The body must be a JSON object");
  return v;
}

export function controlRouter(t: ControlTarget): Router {
  const r = new Router();
  const opts = { auth: false };
  r.get("/_emulator/requests", (ctx) => ok(ctx.query.get("details") === "true" ? t.requestDetails() : t.requests()), opts);
  r.delete(
    "/_emulator/requests",
    () => {
      t.clearRequests();
      return noContent();
    },
    opts,
  );
  r.post(
    "/_emulator/reset",
    () => {
      t.reset();
      return noContent();
    },
    opts,
  );
  r.get("/_emulator/faults", () => ok(t.faults.current() ?? {}), opts);
  r.post("/_emulator/faults", (ctx) => ok(t.faults.set(jsonBody(ctx))), opts);
  r.delete(
    "/_emulator/faults",
    () => {
      t.faults.clear();
      return noContent();
    },
    opts,
  );
  r.post(
    "/_emulator/expire-tokens",
    () => {
      expireAllTokens(t.app);
      return noContent();
    },
    opts,
  );
  r.get("/_emulator/billing/subscribers", () => ok(structuredClone(t.app.store.state.subscribers)), opts);
  r.post(
    "/_emulator/billing/subscribers",
    (ctx) => {
      const b = jsonBody(ctx);
      return ok(structuredClone(addSubscriber(t.app, b.businessUnitId, b.url)));
    },
    opts,
  );
  r.delete(
    "/_emulator/billing/subscribers/:id",
    (ctx) => {
      removeSubscriber(t.app, ctx.param("id"));
      return noContent();
    },
    opts,
  );
  r.post("/_emulator/billing/test", async (ctx) => ok(await sendTest(t.app, jsonBody(ctx).businessUnitId)), opts);
  r.post(
    "/_emulator/billing/generate",
    async (ctx) => {
      const b = jsonBody(ctx);
      return ok(await generateAndNotify(t.app, b.businessUnitId, b.period));
    },
    opts,
  );
  r.get("/_emulator/state", () => ok(t.app.store.snapshot()), opts);
  // Who this is, for a second emulator refused the port (port-holder.ts): the process to stop and its data file.
  r.get("/_emulator/process", () => ok({ pid: process.pid, dataFile: t.app.store.dataFile ?? null }), opts);
  return r;
}
