// What a route handler gets (Ctx) and gives back (Reply).
import type { IncomingHttpHeaders } from "node:http";
import type { Store } from "./store";
import type { ClientRec, State, UserRec } from "./types";
import { Input } from "./input";
import type { Readings } from "./readings";

/** Shared runtime of one emulator instance. */
export interface App {
  store: Store;
  tokenTtlSeconds: number;
  quiet: boolean;
  /** How this emulator answers where the spec allows more than one reading (PUT, audit dates, job list, ...). */
  readings: Readings;
  /** Every /v1 request that is not a GET fails with 403 (logging in excepted): proves a command only reads. */
  readOnly?: boolean;
}

export interface Reply {
  status: number;
  /** JSON body (a string answers a JSON string). Absent: no body. */
  json?: unknown;
  /** A plain text body instead (`text/plain`), e.g. a bare node name. */
  text?: string;
  headers?: Record<string, string>;
}

export const ok = (json: unknown): Reply => ({ status: 200, json });
export const noContent = (): Reply => ({ status: 204 });

/** The caller of an authenticated /v1 request. */
export interface Auth {
  user: UserRec;
  client: ClientRec;
  /** The business unit the account reaches, with all its descendants. */
  rootBusinessUnitId: number;
}

export class Ctx {
  params: Record<string, string> = {};
  auth?: Auth;
  private parsed?: Input;

  constructor(
    readonly app: App,
    readonly method: string,
    readonly url: URL,
    readonly headers: IncomingHttpHeaders,
    readonly body: Buffer,
    /** `http://host:port` the client used, for absolute hrefs. */
    readonly baseUrl: string,
    /** When the request arrived: a token is checked as of then, however long the injected latency. */
    readonly receivedAt: number = Date.now(),
  ) {}

  get store(): Store {
    return this.app.store;
  }
  get state(): State {
    return this.app.store.state;
  }
  get query(): URLSearchParams {
    return this.url.searchParams;
  }

  /** An integer path parameter. */
  param(name: string): number {
    return Number(this.params[name]);
  }

  /** The JSON body, keys matched case-insensitively. */
  input(required = true): Input {
    if (!this.parsed) this.parsed = Input.parse(this.body, required);
    return this.parsed;
  }

  get caller(): Auth {
    if (!this.auth) throw new Error("route needs authentication but none was done");
    return this.auth;
  }

  header(name: string): string | undefined {
    const v = this.headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  }
}
