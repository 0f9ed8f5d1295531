// The one "did you mean" of the product: every unknown key (stack config, tenant
// fields, the registry block, zot's config, the zot chart's values) is answered
// with the closest known key, so a typo is named the same way wherever it is made.

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
export function editDistance(a: string, b: string): number {
  const d: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length];
}

/** The most edits a typo of `key` may have: two, or a third of the key's length when that is more. */
export function maxEdits(key: string): number {
  return Math.max(2, Math.floor(key.length / 3));
}

/**
 * The closest of `candidates` to `key`, case-insensitive, when it is a likely typo: within maxEdits(key) (of equally
 * close candidates, the first); else the first candidate the key starts (a truncated key of three letters or more).
 */
export function suggest(key: string, candidates: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(k, c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  if (best !== undefined && bestD <= maxEdits(key)) return best;
  return k.length >= 3 ? candidates.find((c) => c.toLowerCase().startsWith(k)) : undefined;
}

/** The end of an unknown-key message: `did you mean "x"?`, or the known keys when none is close. */
export function unknownKeyHint(key: string, known: readonly string[], show: (k: string) => string = (k) => `"${k}"`): string {
  const s = suggest(key, known);
  return s !== undefined ? `did you mean ${show(s)}?` : `known keys: ${known.join(", ")}`;
}
