// The Backup Portal API client: every endpoint of spec 000, grouped by area.
// Knows nothing of Pulumi.
import { Activity } from "./activity";
import { Billing } from "./billing";
import { BusinessUnits, TimeZones } from "./business-units";
import { Consumers } from "./consumers";
import { PortalCore } from "./core";
import { Nodes } from "./nodes";
import { ReferenceData } from "./reference-data";
import { PortalSettings, resolveSettings } from "./settings";
import { TransportStats } from "./transport";
import { maskUrl } from "../http/mask-url";

export interface ClientOptions {
  /** Receives one line per retry; never a secret. */
  log?: (line: string) => void;
  /** Waits the pause before a retry (default: a timer); a test gives one that records the pause instead. */
  sleep?: (ms: number) => Promise<unknown>;
}

export class PortalClient {
  readonly businessUnits: BusinessUnits;
  readonly timeZones: TimeZones;
  readonly consumers: Consumers;
  readonly nodes: Nodes;
  readonly reference: ReferenceData;
  readonly activity: Activity;
  readonly billing: Billing;
  private readonly core: PortalCore;

  constructor(settings: PortalSettings, opts: ClientOptions = {}) {
    this.core = new PortalCore(settings, opts.log, opts.sleep);
    this.businessUnits = new BusinessUnits(this.core);
    this.timeZones = new TimeZones(this.core);
    this.consumers = new Consumers(this.core);
    this.nodes = new Nodes(this.core);
    this.reference = new ReferenceData(this.core);
    this.activity = new Activity(this.core);
    this.billing = new Billing(this.core);
  }

  /** A client configured from the BACKUP_PORTAL_* environment variables. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env, opts?: ClientOptions): PortalClient {
    return new PortalClient(resolveSettings(undefined, env), opts);
  }

  /** Requests sent so far, by method, and token requests and retries. */
  get stats(): TransportStats {
    return this.core.stats;
  }

  /** The portal's URL as it may be shown: credentials in it masked (http/mask-url.ts). */
  get url(): string {
    return maskUrl(this.core.settings.url);
  }

  /** Removes this client's password and tokens from a text. */
  redact(text: string): string {
    return this.core.redact(text);
  }

  close(): void {
    this.core.close();
  }

  toJSON(): object {
    return this.core.toJSON();
  }
}
