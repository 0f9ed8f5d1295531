// Retry-After (RFC 9110 §10.2.3), read the same way by the portal client and the metadata reader.

/** Retry-After as ms from `now`: delta-seconds or an HTTP-date (a past date is 0); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // A date names its month and weekday (Jan, Wed); without them, Date.parse would read "1.5" as a date in 2001.
  const date = /[a-z]/.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
