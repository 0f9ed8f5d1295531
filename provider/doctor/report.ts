// What `backup-portal doctor` reports: one line per check, each ok, differs
// (the portal uses another reading, and the client handles it), failed (with
// the fix) or skipped (could not be asked).

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

/**
 * Stands for the account's username in a check's text. The username is no secret, and a wrong one is the most
 * common mistake: it is put in after the redaction, so that a password that is the username (the emulator's
 * admin/admin), or a part of it, does not turn it into `***` there.
 */
export const USERNAME = "\u0000username\u0000";

/** Collects checks in order, redacting each text with `clean` (the username where USERNAME stands excepted). */
export class Checks {
  readonly list: Check[] = [];

  constructor(
    private readonly clean: (text: string) => string = (t) => t,
    private readonly username = "",
  ) {}

  private text(t: string): string {
    return t
      .split(USERNAME)
      .map((part) => this.clean(part))
      .join(this.username);
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
