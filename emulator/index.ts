// Programmatic API of the local Backup Portal emulator: start one in-process,
// talk to it over HTTP at `url`, and control it directly from tests.
import { Store } from "./store";
import { PortalServer } from "./server";
import { expireAllTokens } from "./auth";
import { addSubscriber, generateAndNotify, sendTest, type GenerateResult, type TestResult } from "./subscribers";
import type { FaultConfig } from "./faults";
import { readingsOf, type Readings } from "./readings";
import type { RequestLogEntry, State, SubscriberRec } from "./types";
import type { RequestDetails } from "./request-details";

export { SEED, seedState } from "./seed";
export type { FaultConfig, FaultStatus } from "./faults";
export { DEFAULT_READINGS, READING_VALUES, type Readings } from "./readings";
export type { Delivery } from "./notify";
export type { GenerateResult, TestResult } from "./subscribers";
export type * from "./types";
export type { RequestDetails } from "./request-details";

export const DEFAULT_TOKEN_TTL_SECONDS = 299;

export interface EmulatorOptions extends Partial<Readings> {
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  port?: number;
  /** Keep the state in this file across restarts (loaded at start when present). */
  dataFile?: string;
  /** `expires_in` of access tokens; default 299. */
  tokenTtlSeconds?: number;
  /** No diagnostics on stderr. */
  quiet?: boolean;
  /** Refuse every /v1 request but GET and the token request (403 ReadOnly). */
  readOnly?: boolean;
}

export interface Emulator {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** How it answers where the spec allows more than one reading. */
  readonly readings: Readings;
  close(): Promise<void>;
  /** The request log: every /v1 request in the order answered; status 0 = dropped. */
  requests(): RequestLogEntry[];
  /** The request log with each request's headers that matter and its body (secrets replaced). */
  requestDetails(): RequestDetails[];
  clearRequests(): void;
  /** Back to the seed data; request log and faults cleared. */
  reset(): void;
  setFaults(faults: FaultConfig): FaultConfig;
  clearFaults(): void;
  /** Every access token issued so far expires now. */
  expireTokens(): void;
  /** A deep copy of the data model. */
  state(): State;
  /** Changes the data model directly (e.g. to prepare a test); persisted afterwards. */
  update(change: (state: State) => void): void;
  addBillingSubscriber(businessUnitId: number, url: string): SubscriberRec;
  generateBilling(businessUnitId: number, period?: string): Promise<GenerateResult>;
  sendBillingTest(businessUnitId: number): Promise<TestResult>;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const ttl = opts.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl < 1) throw new Error(`tokenTtlSeconds must be a positive integer, got ${ttl}`);
  const store = Store.open(opts.dataFile);
  const { port: _port, dataFile: _data, tokenTtlSeconds: _ttl, quiet, readOnly, ...readings } = opts;
  const app = { store, tokenTtlSeconds: ttl, quiet: quiet ?? false, readings: readingsOf(readings), readOnly: readOnly ?? false };
  const server = new PortalServer(app);
  const url = await server.listen(opts.port ?? 0);
  return {
    url,
    port: Number(new URL(url).port),
    readings: app.readings,
    close: () => server.close(),
    requests: () => server.requests(),
    requestDetails: () => server.requestDetails(),
    clearRequests: () => server.clearRequests(),
    reset: () => server.reset(),
    setFaults: (f) => server.faults.set(f),
    clearFaults: () => server.faults.clear(),
    expireTokens: () => expireAllTokens(app),
    state: () => store.snapshot(),
    update: (change) => {
      change(store.state);
      store.changed();
      store.flush();
    },
    addBillingSubscriber: (businessUnitId, subscriberUrl) => structuredClone(addSubscriber(app, businessUnitId, subscriberUrl)),
    generateBilling: (businessUnitId, period) => generateAndNotify(app, businessUnitId, period),
    sendBillingTest: (businessUnitId) => sendTest(app, businessUnitId),
  };
}
