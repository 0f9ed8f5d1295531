// Fault drills: the bench's workload (bench/workload.ts) through the engine
// stand-in against an emulator that fails on purpose; helpers to run a
// deployment until it completes (bounded), and to describe the outcome.
import assert from "node:assert/strict";
import type { Emulator, RequestLogEntry, State } from "../../emulator";
import { StateResource, TestEngine, UpdateError } from "../engine/engine";
import type { Workload } from "../../bench/workload";

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `pred` every 5 ms; false when `timeoutMs` passed first. */
export async function until(pred: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (pred()) return true;
    await sleep(5);
  }
  return pred();
}

export interface RunOutcome {
  ok: boolean;
  error?: string;
}

/** One `pulumi up`: resolves with its outcome; an error must be an UpdateError that names resources. */
export async function upOnce(engine: TestEngine, w: Workload): Promise<RunOutcome> {
  try {
    await engine.up(w.resources);
    return { ok: true };
  } catch (err) {
    assert.ok(err instanceof UpdateError, `not an UpdateError: ${String(err)}`);
    for (const f of err.failures) {
      // A clear error: which resource, which operation, and a message that is not a bare stack or "undefined".
      assert.match(f.urn, /^urn:pulumi:/);
      assert.ok(f.message.length > 10 && !/^undefined|\[object Object\]/.test(f.message), `unclear message: ${f.message}`);
    }
    return { ok: false, error: err.failures.map((f) => `${f.urn.split("::").pop()} (${f.op}): ${f.message.split("\n")[0]}`).join("; ") };
  }
}

/** Every state resource points at a live portal object of the right kind. */
export function stateMatchesPortal(resources: StateResource[], s: State): string[] {
  const problems: string[] = [];
  for (const r of resources) {
    const id = Number(r.id);
    const type = r.type.split(":").pop();
    if (type === "BusinessUnit" && !s.businessUnits.some((b) => b.id === id)) problems.push(`${r.name}: business unit ${id} is gone`);
    if (type === "Consumer" && !s.consumers.some((c) => c.id === id)) problems.push(`${r.name}: consumer ${id} is gone`);
    if (type === "Node") {
      const n = s.nodes.find((x) => x.consumerId === id);
      if (!n) problems.push(`${r.name}: consumer ${id} has no node`);
      else if (n.tsmName !== r.outputs.activatedName)
        problems.push(`${r.name}: node is ${n.tsmName}, state says ${String(r.outputs.activatedName)}`);
    }
  }
  return problems;
}

/** What the emulator did to the requests since `mark`: injected answers and dropped connections. */
export function faultCounts(log: RequestLogEntry[]): Record<string, number> {
  const out: Record<string, number> = { requests: log.length, tokens: 0, "503": 0, "429": 0, dropped: 0, "404": 0, "409": 0, "401": 0 };
  for (const r of log) {
    if (r.path.startsWith("/v1/oauth")) out.tokens++;
    if (r.status === 0) out.dropped++;
    else if (String(r.status) in out) out[String(r.status)]++;
  }
  return out;
}

/** Writes in a request log (token requests excluded; activation is a GET that writes). */
export function writesIn(log: RequestLogEntry[]): RequestLogEntry[] {
  return log.filter((r) => (r.method !== "GET" || r.path.includes("/node/activate")) && !r.path.startsWith("/v1/oauth"));
}

export type { Emulator };
