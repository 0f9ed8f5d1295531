// The one "did you mean" of the product: every unknown name (a command, a flag, a stack-config key, a tenant
// field, the registry block, zot's config, the zot chart's values) is answered with the closest known one, so a
// typo is named the same way wherever it is made.

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `regsiter` is one edit from `register`,
 * as a typist's swap should be.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The most edits a typo of `word` may have: two (`nt` for `note`), or a third of its length when that is more. */
export function maxEdits(word: string): number {
  return Math.max(2, Math.floor(word.length / 3));
}

/**
 * The closest of `candidates` to `word`, case ignored, when it is a likely typo: within maxEdits(word) (of equally
 * close candidates, the first listed); else the first candidate that starts with it (a truncated word of three
 * letters or more); else undefined.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  if (best !== undefined && bestD <= maxEdits(word)) return best;
  return w.length >= 3 ? candidates.find((c) => c.toLowerCase().startsWith(w)) : undefined;
}

/** The end of an unknown-key message: `did you mean "x"?`, or the known keys when none is close. */
export function unknownKeyHint(key: string, known: readonly string[], show: (k: string) => string = (k) => `"${k}"`): string {
  const s = suggest(key, known);
  return s !== undefined ? `did you mean ${show(s)}?` : `known keys: ${known.join(", ")}`;
}
