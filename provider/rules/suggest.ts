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

/** Whether `word` is `of` with letters left out (`nt` in `note`): every letter of it, in order. */
function leftOut(word: string, of: string): boolean {
  let i = 0;
  for (const ch of of) if (ch === word[i]) i++;
  return i === word.length;
}

/**
 * The most edits a typo of `word` for `candidate` may have: two, or a third of the word when that is more; a word
 * under 6 letters gets two only when it is the candidate with letters left out (`nt` for `note`), else one (two
 * changed letters would turn `nope` into `type`).
 */
export function maxEdits(word: string, candidate: string): number {
  if (word.length >= 6) return Math.max(2, Math.floor(word.length / 3));
  return leftOut(word.toLowerCase(), candidate.toLowerCase()) ? 2 : 1;
}

/**
^ * The closest of `candidates` to `word`, case ignored, when it is a likely typo: within maxEdits (of equally
 * close candidates, the first listed); else the first candidate that starts with it (a truncated word of three
 * letters or more); else undefined.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d <= maxEdits(w, c) && d < bestD) {
      bestD = d;
      best = c;
    }
  }
  if (best !== undefined) return best;
  return w.length >= 3 ? candidates.find((c) => c.toLowerCase().startsWith(w)) : undefined;
}

/** The end of an unknown-key message: `did you mean "x"?`, or the known keys when none is close. */
export function unknownKeyHint(key: string, known: readonly string[], show: (k: string) => string = (k) => `"${k}"`): string {
  const s = suggest(key, known);
  return s !== undefined ? `did you mean ${show(s)}?` : `known keys: ${known.join(", ")}`;
}
