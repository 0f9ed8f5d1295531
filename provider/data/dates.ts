// Dates for the data functions and the CLI: a Date, an ISO 8601 timestamp, a day
// (`YYYY-MM-DD`) or a duration ago (`90m`, `24h`, `7d`, `2w`), sent to the portal as
// `YYYY-MM-DDThh:mm:ssZ` (with milliseconds only when there are some).

export type DateInput = Date | string;

const DAY_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const AGO = /^(\d+)\s*([smhdw])$/i;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `YYYY-MM-DDThh:mm:ssZ` (milliseconds kept when not zero). */
export function formatTimestamp(d: Date): string {
  const text = d.toISOString();
  return text.endsWith(".000Z") ? `${text.slice(0, 19)}Z` : text;
}

/**
 * A date input as a portal timestamp. A bare day is its first moment for `edge: "start"` and its
 * last for `edge: "end"`, so `--to 2025-01-31` includes the 31st. Throws RangeError when unreadable.
 */
export function toTimestamp(input: DateInput, edge: "start" | "end" = "start", now: number = Date.now()): string {
  if (input instanceof Date) {
    if (Number.isNaN(input.getTime())) throw new RangeError("invalid Date");
    return formatTimestamp(input);
  }
  const text = String(input).trim();
  const day = DAY_ONLY.exec(text);
  if (day) {
    const d = new Date(`${text}T00:00:00Z`);
    if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text) throw new RangeError(`not a date: ${JSON.stringify(input)}`);
    return edge === "start" ? formatTimestamp(d) : formatTimestamp(new Date(d.getTime() + 86_400_000 - 1));
  }
  const ago = AGO.exec(text);
  if (ago) {
    // A Date holds ±8.64e15 ms around 1970: `99999999999d` ago is none (toISOString would throw "Invalid time value").
    const at = new Date(now - Number(ago[1]) * UNIT_MS[ago[2].toLowerCase()]);
    if (Number.isNaN(at.getTime())) throw new RangeError(`not a date: ${JSON.stringify(input)} lies before the earliest date there is`);
    return formatTimestamp(at);
  }
  // ISO 8601 with a time; a time without a zone is read as UTC.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text)) {
    throw new RangeError(`not a date: ${JSON.stringify(input)} (use YYYY-MM-DD, an ISO 8601 timestamp, or a duration ago like 24h or 7d)`);
  }
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned);
  if (Number.isNaN(ms)) throw new RangeError(`not a date: ${JSON.stringify(input)}`);
  return formatTimestamp(new Date(ms));
}

/** `YYYY-MM-DD`, checked; throws RangeError otherwise. */
export function toDay(input: DateInput): string {
  if (input instanceof Date) return toTimestamp(input).slice(0, 10);
  const text = String(input).trim();
  if (!DAY_ONLY.exec(text)) throw new RangeError(`not a date YYYY-MM-DD: ${JSON.stringify(input)}`);
  toTimestamp(text); // validates the calendar date
  return text;
}
