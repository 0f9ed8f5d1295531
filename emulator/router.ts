// A small router: `METHOD /path/:param` patterns. Parameters named `date`
// match one path segment, all others match integer ids only.
import type { Ctx, Reply } from "./context";

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

export interface RouteOptions {
  /** false: no Bearer token needed (token request, version). Default true. */
  auth?: boolean;
}

interface Route {
  method: string;
  /** As added, e.g. `/v1/bunits/:bunit`. */
  pattern: string;
  regex: RegExp;
  keys: string[];
  handler: Handler;
  auth: boolean;
}

export type Match =
  | { kind: "found"; handler: Handler; params: Record<string, string>; auth: boolean }
  | { kind: "method"; allowed: string[] }
  | { kind: "none" };

export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler, opts: RouteOptions = {}): this {
    const keys: string[] = [];
    const source = pattern
      .split("/")
      .map((seg) => {
        if (!seg.startsWith(":")) return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        const key = seg.slice(1);
        keys.push(key);
        return key === "date" ? "([^/]+)" : "(\\d+)";
      })
      .join("/");
    this.routes.push({ method, pattern, regex: new RegExp(`^${source}/?$`), keys, handler, auth: opts.auth ?? true });
    return this;
  }

  /** Every route as `METHOD /pattern`, in the order added (the docs test holds docs/emulator.md to this list). */
  list(): string[] {
    return this.routes.map((r) => `${r.method} ${r.pattern}`);
  }

  get(p: string, h: Handler, o?: RouteOptions): this {
    return this.add("GET", p, h, o);
  }
  post(p: string, h: Handler, o?: RouteOptions): this {
    return this.add("POST", p, h, o);
  }
  put(p: string, h: Handler, o?: RouteOptions): this {
    return this.add("PUT", p, h, o);
  }
  delete(p: string, h: Handler, o?: RouteOptions): this {
    return this.add("DELETE", p, h, o);
  }

  match(method: string, path: string): Match {
    const allowed: string[] = [];
    for (const r of this.routes) {
      const m = r.regex.exec(path);
      if (!m) continue;
      if (r.method !== method) {
        allowed.push(r.method);
        continue;
      }
      const params: Record<string, string> = {};
      r.keys.forEach((k, i) => {
        params[k] = safeDecode(m[i + 1]);
      });
      return { kind: "found", handler: r.handler, params, auth: r.auth };
    }
    return allowed.length ? { kind: "method", allowed: [...new Set(allowed)] } : { kind: "none" };
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
