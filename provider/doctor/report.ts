// What `backup-portal doctor` reports: one line per check, each ok, differs
// (the portal uses another reading, and the client handles it), failed (with
// the fix) or skipped (could not be asked).
import { randomUUID } from "crypto";

export type CheckStatus = "ok" | "differs" | "failed" | "skipped";

export interface Check {
  /** Stable id, named by docs/portal-contract.md (e.g. `jobs-path`). */
  id: string;
  status: CheckStatus;
  /** What was found; never a secret. */
  detail: string;
  /** The reading the portal uses, when the check tells readings apart (e.g. "startDate/endDate"). */
  reading?: string;
  /** For a failed check: what to change. */
  fix?: string;
}

export interface DoctorReport {
  /** True when nothing the providers rely on failed. */
  ok: boolean;
  checks: Check[];
  /** What a write test made and could not remove (remove it in the portal). */
  leftBehind: string[];
}

/** Marks what a check shows as it is; made at random per process, so that no text from the portal can carry it. */
const SHOWN = `\u0000${randomUUID()}\u0000`;

/**
 * `text` to show as it is in a check's detail or fix, not redacted: the account's username. It is no secret, and a
 * wrong one is the commonest mistake; a password that is the username (the emulator's admin/admin), or a part of
 * it, would otherwise turn it into `***`.
 */
export function shown(text: string): string {
  return `${SHOWN}${text}${SHOWN}`;
}

/** Collects checks in order, redacting each text with `clean` (what `shown` marks excepted). */
export class Checks {
  readonly list: Check[] = [];

  constructor(private readonly clean: (text: string) => string = (t) => t) {}

  private text(t: string): string {
    return t
      .split(SHOWN)
      .map((part, i) => (i % 2 === 1 ? part : this.clean(part)))
      .join("");
  }

  add(c: Check): Check {
    const out: Check = { ...c, detail: this.text(c.detail) };
    if (c.fix !== undefined) out.fix = this.text(c.fix);
    this.list.push(out);
    return out;
  }

  ok(id: string, detail: string, reading?: string): Check {
    return this.add({ id, status: "ok", detail, ...(reading ? { reading } : {}) });
  }

  differs(id: string, detail: string, reading: string): Check {
    return this.add({ id, status: "differs", detail, reading });
  }

  failed(id: string, detail: string, fix: string): Check {
    return this.add({ id, status: "failed", detail, fix });
  }

  skipped(id: string, detail: string): Check {
    return this.add({ id, status: "skipped", detail });
  }

  get failures(): number {
    return this.list.filter((c) => c.status === "failed").length;
  }
}

/** The report as text lines: `status  id  detail` (and the fix), aligned. */
export function formatReport(r: DoctorReport): string {
  const idWidth = Math.max(0, ...r.checks.map((c) => c.id.length));
  const lines = r.checks.map((c) => {
    const text = c.status === "failed" && c.fix ? `${c.detail}; fix: ${c.fix}` : c.detail;
    return `${c.status.padEnd(7)}  ${c.id.padEnd(idWidth)}  ${text.replace(/[\r\n]+/g, " ")}`;
  });
  for (const what of r.leftBehind) lines.push(`left behind: ${what}`);
  const failed = r.checks.filter((c) => c.status === "failed").length;
  const differs = r.checks.filter((c) => c.status === "differs").length;
  lines.push(
    r.ok
      ? `result: everything the providers rely on holds${differs ? ` (${differs} reading${differs > 1 ? "s" : ""} differ from the API documentation; the client handles them)` : ""}`
      : `result: ${failed} check${failed > 1 ? "s" : ""} failed; fix ${failed > 1 ? "them" : "it"} before the first pulumi up`,
  );
  return `${lines.join("\n")}\n`;
}
