// "Did you mean ...?": the nearest of a set of known words to a word nobody knows, for every place that
// refuses an unknown name (command, flag, config key). One rule for the whole product.

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `regsiter` is one edit from
 * `register`, as a typist's swap should be.
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

/** How far a guess may be: 1 edit in a word under 6 letters (2 would turn `nope` into `type`), else 2 or a third. */
function reach(word: string): number {
  return word.length < 6 ? 1 : Math.max(2, Math.floor(word.length / 3));
}

/**
 * The candidate nearest to `word` (case ignored) within a small distance, or undefined when none is near
 * enough to be a typo. Ties go to the candidate listed first.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= reach(word) ? best : undefined;
}
