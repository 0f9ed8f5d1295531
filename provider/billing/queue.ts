// The billing receiver's notification queue: a notification waits here until a read of the billing data that
// started after it arrived has been written (and shows the period it named). One worker serves them all, one
// read at a time, so two never write the same file at once; a read serves every notification waiting when it
// starts. Reads worth repeating are repeated with backoff, for each notification at most `fetchAttempts` times
// and never past its deadline, which counts from its arrival.
import { PortalClient } from "../portal/client";
import { PortalError } from "../portal/errors";
import { BillingData } from "../portal/types";
import { periodOf, WrittenPeriod, writePeriod } from "./files";

export interface QueueOptions {
  /** Where the files go: `<outDir>/<businessUnitId>/<YYYY-MM-DD>.json`. */
  outDir: string;
  /** The reseller business unit whose billing data this receiver stores (the Post URL's `bunit`). */
  businessUnitId: number;
  /** Portal client used to read the billing data. */
  client: PortalClient;
  /** Reads of the billing data per notification (first included); default 4. */
  fetchAttempts?: number;
  /** First pause between reads, doubled each time; default 500 ms. */
  retryBaseMs?: number;
  /** Longest pause between reads; default 4000 ms. */
  retryMaxMs?: number;
  /**
   * No new read starts for a notification this long after it arrived (however long it waited behind others);
   * it is answered 503 instead. Default 8000 ms (the sender waits about 10 s).
   */
  deadlineMs?: number;
}

/** What the queue counts (a part of the receiver's stats). */
export interface QueueCounters {
  fetches: number;
  written: number;
  /** Notifications that arrived while others waited for a read, and were served by that same read. */
  coalesced: number;
}

/** Whether a failed read of the billing data is worth repeating (a period not visible yet always is). */
export function retryable(err: unknown): boolean {
  return err instanceof PortalError && (err.status === 0 || err.status === 408 || err.status === 429 || err.status >= 500);
}

/** A write failed part way: the periods before it are on disk (replaced), the rest are not. */
export class PartlyStored extends Error {
  constructor(
    readonly stored: string[],
    readonly notStored: string[],
    cause: unknown,
  ) {
    super(
      `writing period ${notStored[0]} failed after storing ${stored.length ? stored.join(", ") : "none"}` +
        `; not stored: ${notStored.join(", ")}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

/** A notification waiting for a read of the billing data that covers it. */
interface Waiter {
  /** The period the notification named; that read must show it. */
  period?: string;
  /** No read starts for it after this (ms since the epoch): counted from its arrival. */
  deadline: number;
  /** Reads it took part in. */
  reads: number;
  /** Why its last read did not store it, if one did not. */
  lastError?: unknown;
  timer?: NodeJS.Timeout;
  resolve(files: WrittenPeriod[]): void;
  reject(err: unknown): void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class NotificationQueue {
  /** Notifications not answered yet. */
  private readonly pending: Waiter[] = [];
  /** The notifications the read in progress serves. */
  private reading = new Set<Waiter>();
  private worker: Promise<void> | undefined;

  constructor(
    private readonly o: QueueOptions,
    private readonly counters: QueueCounters,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Resolves once a read that started after the notification arrived has been written (and shows `period`,
   * when one is named); rejects when that could not happen before the notification's deadline.
   */
  notify(period: string | undefined, arrived: number): Promise<WrittenPeriod[]> {
    return new Promise<WrittenPeriod[]>((resolve, reject) => {
      const w: Waiter = { period, deadline: arrived + (this.o.deadlineMs ?? 8000), reads: 0, resolve, reject };
      // Another one waits for the next read already: this one adds no work, that read serves both.
      if (this.pending.some((x) => !this.reading.has(x))) this.counters.coalesced++;
      this.pending.push(w);
      // Its deadline counts from its arrival: when it passes while reads for others go on, it is answered at once.
      w.timer = setTimeout(
        () => {
          if (!this.reading.has(w))
            this.settle(w, w.lastError ?? new Error("not stored in time: the reads for earlier notifications took too long"));
        },
        Math.max(0, w.deadline - Date.now()),
      );
      this.worker ??= this.work().finally(() => {
        this.worker = undefined;
      });
    });
  }

  /** Answers a waiter (with the files, or an error) and forgets it. */
  private settle(w: Waiter, outcome: WrittenPeriod[] | unknown, ok = false): void {
    const i = this.pending.indexOf(w);
    if (i < 0) return;
    this.pending.splice(i, 1);
    clearTimeout(w.timer);
    if (ok) w.resolve(outcome as WrittenPeriod[]);
    else w.reject(outcome);
  }

  /** Reads and writes until no notification waits. */
  private async work(): Promise<void> {
    const attempts = this.o.fetchAttempts ?? 4;
    const base = this.o.retryBaseMs ?? 500;
    const max = this.o.retryMaxMs ?? 4000;
    let failures = 0;
    while (this.pending.length) {
      for (const w of [...this.pending]) {
        if (Date.now() > w.deadline) this.settle(w, w.lastError ?? new Error("not stored in time"));
      }
      if (!this.pending.length) return;
      this.reading = new Set(this.pending);
      const served = [...this.reading];
      let failure: unknown;
      let retry = false;
      try {
        const written = await this.readAndWrite(served);
        failures = 0;
        for (const w of served) {
          if (written && (!w.period || written.some((f) => f.period === w.period))) this.settle(w, written, true);
          else w.lastError = new Error(`the portal's billing data has no period ${w.period} yet`);
        }
        retry = served.some((w) => this.pending.includes(w));
      } catch (err) {
        failure = err;
        for (const w of served) w.lastError = err;
        retry = true;
      } finally {
        this.reading = new Set();
      }
      if (!retry) continue; // everyone served: the ones that arrived meanwhile get a read at once
      failures++;
      const pause = Math.min(max, base * 2 ** (failures - 1));
      for (const w of served) {
        w.reads++;
        const worth = failure === undefined || retryable(failure);
        if (!worth || w.reads >= attempts || Date.now() + pause > w.deadline) this.settle(w, w.lastError);
      }
      if (!this.pending.length) return;
      const why =
        failure === undefined
          ? "the named period is not visible yet"
          : `reading billing data failed (${failure instanceof Error ? failure.message : String(failure)})`;
      this.log(`${why}; retry ${failures}/${attempts - 1} in ${pause} ms`);
      await sleep(pause);
    }
  }

  /**
   * Reads the billing data and writes every period (so a notification missed earlier is caught up); writes
   * nothing, and resolves to undefined, when no notification it serves can be honoured by this data.
   */
  private async readAndWrite(served: Waiter[]): Promise<WrittenPeriod[] | undefined> {
    this.counters.fetches++;
    const data: BillingData[] = await this.o.client.billing.billingData(this.o.businessUnitId);
    const filed = data.filter((d) => periodOf(d));
    if (!served.some((w) => !w.period || filed.some((d) => periodOf(d) === w.period))) return undefined;
    const skipped = data.filter((d) => !periodOf(d)).map((d) => d.period ?? d.href);
    if (skipped.length)
      this.log(`skipped ${skipped.length} billing entries without a YYYY-MM-DD period: ${JSON.stringify(skipped.slice(0, 3))}`);
    // Never "stored" when nothing was: the sender would take the data as delivered.
    if (data.length && !filed.length) throw new Error(`none of the ${data.length} billing entries has a YYYY-MM-DD period or href`);
    const written: WrittenPeriod[] = [];
    for (const d of filed) {
      try {
        written.push(await writePeriod(this.o.outDir, this.o.businessUnitId, d));
      } catch (err) {
        // The periods before are replaced already, the rest are not: the answer and the log say which.
        this.counters.written += written.filter((w) => w.change !== "unchanged").length;
        throw new PartlyStored(
          written.map((w) => w.period),
          filed.slice(written.length).map((x) => periodOf(x)!),
          err,
        );
      }
    }
    this.counters.written += written.filter((w) => w.change !== "unchanged").length;
    return written;
  }
}
