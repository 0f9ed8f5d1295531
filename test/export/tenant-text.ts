// Tenant text for property tests: what a portal user may type, weighted towards what YAML readers take for
// something else (dates, numbers, YAML 1.1 booleans in any case, null, indicators, the line breaks of YAML 1.1).
import fc from "fast-check";

/** Whole scalars that some reader (yaml.v3, YAML 1.1, YAML 1.2 core) reads as other than the same string. */
export const READ_AS_OTHER = [
  "2024-01-01",
  "2024-01-01T10:00:00Z",
  "2024-01-01 10:00:00",
  "2024-1-1",
  "1_000",
  "0123",
  "010",
  "0o17",
  "0x1f",
  "0b101",
  "1e3",
  "+5",
  "-7",
  "1.5",
  "12:30",
  "1:20:30",
  ".inf",
  "-.Inf",
  ".nan",
  "~",
  "null",
  "NULL",
  "",
  "<<",
  "=",
] as const;

/** Pieces that change how a reader splits the text: indicators, comments, separators, line breaks, odd spaces. */
const PIECES = [
  "#",
  " #x",
  ": ",
  "x:",
  "- ",
  "? ",
  "[a]",
  "{a: b}",
  ", ",
  "&a",
  "*a",
  "!t",
  "|",
  ">",
  "%",
  "@",
  "`",
  "'",
  '"',
  "\\",
  "\t",
  " ",
  "  ",
  "\n",
  "\r\n",
  "\u2028",
  "\u2029",
  "\u0085",
  "\u00a0",
  "\ufeff",
  "\u202e",
  "\u200b",
  "\u007f",
  "\u0001",
  "\ud800",
  "zz:moved:",
  "protect:",
  "false",
  "Acme AB",
  "Ölfabrik",
  "東京",
  "…",
];

/** A YAML 1.1 or 1.2 boolean or null word in any mix of cases (yEs, oN, N, tRUE). */
export const wordAnyCase = fc
  .constantFrom("yes", "no", "on", "off", "y", "n", "true", "false", "null")
  .chain((w) =>
    fc
      .array(fc.boolean(), { minLength: w.length, maxLength: w.length })
      .map((up) => [...w].map((c, i) => (up[i] ? c.toUpperCase() : c)).join("")),
  );

/** One piece of text. */
const piece = fc.oneof(
  fc.constantFrom(...READ_AS_OTHER),
  wordAnyCase,
  fc.constantFrom(...PIECES),
  fc.string({ maxLength: 4 }),
  fc.string({ maxLength: 3, unit: "grapheme" }),
);

/** Tenant text: a few pieces joined, so that both whole tokens and tokens inside text come up. */
export const tenantText = fc.oneof(
  fc.constantFrom(...READ_AS_OTHER),
  wordAnyCase,
  fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join("")),
);
