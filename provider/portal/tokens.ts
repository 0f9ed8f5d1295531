// The client's OAuth token: one per client, obtained with the password grant,
// renewed before it expires with the refresh grant (falling back to the
// password grant), and single-flight: concurrent callers share one renewal.
import { AccessToken } from "./types";
import { TOKEN_PATH, TokenSource, Transport } from "./transport";

interface Credentials {
  clientId: string;
  username: string;
  password: string;
}

interface Held {
  access: string;
  refresh?: string;
  expiresAt: number;
  lifetimeMs: number;
}

export class TokenManager implements TokenSource {
  // Private fields: never shown by util.inspect, JSON or a debugger's object dump.
  #held?: Held;
  private renewing?: Promise<string>;

  constructor(
    private readonly transport: Transport,
    private readonly creds: () => Credentials,
    private readonly now: () => number = Date.now,
  ) {}

  /** Current access and refresh tokens, for redaction. */
  secrets(): string[] {
    return [this.#held?.access, this.#held?.refresh].filter((s): s is string => !!s);
  }

  async token(deadline?: number): Promise<string> {
    const h = this.#held;
    // Renew when less than a quarter of the lifetime (at most 30 s) is left, so a
    // call never starts with a token about to expire.
    if (h && this.now() < h.expiresAt - Math.min(30_000, h.lifetimeMs / 4)) return h.access;
    return this.renew(deadline);
  }

  invalidate(token: string): void {
    if (this.#held?.access === token) this.#held = { ...this.#held, expiresAt: 0 };
  }

  private renew(deadline?: number): Promise<string> {
    // Concurrent callers share one renewal, bounded by the deadline of the caller that started it.
    if (!this.renewing) {
      this.renewing = this.obtain(deadline).finally(() => {
        this.renewing = undefined;
      });
    }
    return this.renewing;
  }

  private async obtain(deadline?: number): Promise<string> {
    const { clientId, username, password } = this.creds();
    const old = this.#held;
    if (old?.refresh) {
      try {
        const t = await this.grant({ client_id: clientId, grant_type: "refresh_token", refresh_token: old.refresh }, deadline, old.access);
        return this.keep(t, old.refresh);
      } catch {
        // Refresh refused (not allowed for this client ID, or the refresh token is no longer valid): the
        // password grant still works, and this refresh token is not offered again (a new one may come with it).
        old.refresh = undefined;
      }
    }
    const t = await this.grant({ client_id: clientId, grant_type: "password", username, password }, deadline);
    return this.keep(t, t.refresh_token);
  }

  private grant(form: Record<string, string>, deadline: number | undefined, bearer?: string): Promise<AccessToken> {
    return this.transport.request<AccessToken>({
      method: "POST",
      path: TOKEN_PATH,
      body: { form },
      retry: "safe",
      auth: false,
      bearer,
      deadline,
    });
  }

  private keep(t: AccessToken, refresh: string | undefined): string {
    if (!t || typeof t.access_token !== "string") {
      throw this.transport.notTheApiError("POST", TOKEN_PATH, 200, "its token request was answered without an access_token");
    }
    const lifetimeMs = Math.max(1, Number(t.expires_in) || 299) * 1000;
    this.#held = { access: t.access_token, refresh: t.refresh_token ?? refresh, expiresAt: this.now() + lifetimeMs, lifetimeMs };
    return t.access_token;
  }
}
