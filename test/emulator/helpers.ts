// Shared helpers of the emulator tests: start/stop, token requests and JSON calls over real HTTP.
import { startEmulator, SEED, type Emulator, type EmulatorOptions } from "../../emulator";

export { SEED };
export const ORIGIN = SEED.origin;

export interface Res {
  status: number;
  headers: Headers;
  text: string;

  body: any;
}

/** Starts an emulator for a `describe` block (quiet) and closes it afterwards. */
export function useEmulator(opts: EmulatorOptions = {}): { readonly em: Emulator } {
  const holder: { em?: Emulator } = {};
  before(async () => {
    holder.em = await startEmulator({ quiet: true, ...opts });
  });
  after(async () => {
    await holder.em?.close();
  });
  return {
    get em(): Emulator {
      if (!holder.em) throw new Error("emulator not started");
      return holder.em;
    },
  };
}

/** A suite's emulator, reset before each test, with an admin and a tenant session. */
export function useAccounts(opts: EmulatorOptions = {}): { readonly em: Emulator; admin: Api; tenant: Api } {
  const ctx = useEmulator(opts);
  const accounts = {
    get em(): Emulator {
      return ctx.em;
    },
    admin: undefined as unknown as Api,
    tenant: undefined as unknown as Api,
  };
  beforeEach(async () => {
    ctx.em.reset();
    accounts.admin = api(ctx.em, await login(ctx.em));
    accounts.tenant = api(ctx.em, await login(ctx.em, "tenant"));
  });
  return accounts;
}

async function toRes(r: Response): Promise<Res> {
  const text = await r.text();
  let body: unknown = undefined;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: r.status, headers: r.headers, text, body };
}

export async function tokenRequest(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = { Origin: ORIGIN },
): Promise<Res> {
  const r = await fetch(`${url}/v1/oauth`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return toRes(r);
}

export async function login(em: Emulator, user: "admin" | "tenant" = "admin", clientId = "emulator"): Promise<string> {
  const u = SEED.users[user];
  const res = await tokenRequest(em.url, { client_id: clientId, grant_type: "password", username: u.username, password: u.password });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}

export interface CallOptions {
  token?: string;
  origin?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export async function call(em: Emulator | string, method: string, path: string, opts: CallOptions = {}): Promise<Res> {
  const url = typeof em === "string" ? em : em.url;
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.origin !== null) headers.Origin = opts.origin ?? ORIGIN;
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  let body: string | Buffer | undefined;
  if (Buffer.isBuffer(opts.body)) body = opts.body;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["Content-Type"] ??= "application/json";
  }
  return toRes(await fetch(`${url}${path}`, { method, headers, body }));
}

/** A caller bound to one token. */
export function api(em: Emulator, token: string) {
  return {
    get: (p: string) => call(em, "GET", p, { token }),
    post: (p: string, body?: unknown) => call(em, "POST", p, { token, body }),
    put: (p: string, body?: unknown) => call(em, "PUT", p, { token, body }),
    del: (p: string) => call(em, "DELETE", p, { token }),
  };
}

export type Api = ReturnType<typeof api>;

export async function control(em: Emulator, method: string, path: string, body?: unknown): Promise<Res> {
  return call(em, method, `/_emulator${path}`, { origin: null, body });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A node body using seeded reference ids. */
export function nodeBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    operatingSystem: { id: SEED.operatingSystems.linux.id },
    type: { id: SEED.nodeTypes.fileServer.id },
    domain: { id: SEED.domains.STANDARD.id },
    clientOptionSet: { id: SEED.clientOptionSets.DEDUP_AND_COMPRESS.id },
    ...extra,
  };
}
