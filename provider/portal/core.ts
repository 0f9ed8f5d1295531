// The authenticated core every endpoint group uses: one transport and one
// token per client.
import { redact } from "./errors";
import { DEFAULT_MAX_ANSWER_BYTES, PortalSettings } from "./settings";
import { TokenManager } from "./tokens";
import { STACK_HINTS } from "./hints";
import { RequestSpec, Transport, TransportStats } from "./transport";

export type Call = Omit<RequestSpec, "auth" | "retry"> & Partial<Pick<RequestSpec, "auth" | "retry">>;

export class PortalCore {
  readonly transport: Transport;
  private readonly tokens: TokenManager;
  // A private field: never enumerated, printed or serialized.
  readonly #password: string;

  constructor(
    readonly settings: Readonly<PortalSettings>,
    log?: (line: string) => void,
    sleep?: (ms: number) => Promise<unknown>,
  ) {
    this.#password = settings.password;
    this.settings = Object.freeze({ ...settings, password: "***" });
    this.transport = new Transport({
      url: settings.url,
      origin: settings.origin,
      timeoutMs: settings.timeoutMs ?? 30_000,
      deadlineMs: settings.deadlineMs,
      maxAnswerBytes: settings.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
      maxAttempts: settings.maxAttempts ?? 6,
      retryBaseMs: settings.retryBaseMs ?? 200,
      retryMaxMs: settings.retryMaxMs ?? 10_000,
      maxSockets: settings.maxSockets ?? 32,
      hints: settings.hintContext ?? STACK_HINTS,
      secrets: () => this.secrets(),
      log,
      sleep,
    });
    this.tokens = new TokenManager(this.transport, () => ({
      clientId: settings.clientId,
      username: settings.username,
      password: this.#password,
    }));
    this.transport.tokens = this.tokens;
  }

  /** The deadline of each request, ms. */
  get timeoutMs(): number {
    return this.transport.timeoutMs;
  }

  get stats(): TransportStats {
    return this.transport.stats;
  }

  secrets(): string[] {
    return [this.#password, ...this.tokens.secrets()];
  }

  /** Redacts the client's secrets from any text (for messages built outside the transport). */
  redact(text: string): string {
    return redact(text, this.secrets());
  }

  call<T>(c: Call): Promise<T> {
    const retry = c.retry ?? (c.method === "POST" ? "create" : "safe");
    return this.transport.request<T>({ ...c, auth: c.auth ?? true, retry });
  }

  get<T>(path: string, query?: Call["query"]): Promise<T> {
    return this.call<T>({ method: "GET", path, query });
  }

  close(): void {
    this.transport.close();
  }

  toJSON(): object {
    return { url: this.settings.url, username: this.settings.username };
  }
}

/** `/v1/bunits/{id}` and the paths below it. */
export function bunitPath(bunitId: number, rest = ""): string {
  return `/v1/bunits/${encodeURIComponent(String(bunitId))}${rest}`;
}

export function consumerPath(bunitId: number, consumerId: number, rest = ""): string {
  return bunitPath(bunitId, `/consumers/${encodeURIComponent(String(consumerId))}${rest}`);
}
