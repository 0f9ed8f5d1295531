// Which strings may be written as plain YAML scalars, and how the rest is escaped, for every YAML text this
// package writes from values it does not control (the stack file of `backup-portal export`, cloud-init user data).
// Three readers must read each value back as the same string: the Pulumi CLI's gopkg.in/yaml.v3 (timestamps such
// as 2024-01-01, numbers such as 1_000 and 0123 as octal), YAML 1.1 readers (yes/no/on/off/y/n as booleans,
// sexagesimal 1:20, PyYAML) and YAML 1.2's core schema (the `yaml` package). YAML 1.1 readers also end a line at
// U+0085, U+2028 and U+2029, so such a character written raw lets a value start a new key.

import { BIDI_CONTROLS } from "../text/controls";

/** Line breaks of YAML 1.1 (yaml.v3, PyYAML) and of sh; YAML 1.2 counts only CR and LF. */
export const YAML11_LINE_BREAKS = /[\r\n\u0085\u2028\u2029]/;

/**
 * Characters never written raw: those yaml.v3 and PyYAML refuse in a stream (C0 and C1 controls but tab, LF and CR;
 * DEL; U+FFFE, U+FFFF), the YAML 1.1 line breaks U+0085, U+2028 and U+2029, the byte order mark, and the bidi
 * controls, which would make a reviewer read a value in another order than the readers do.
 */
const ESCAPED = new RegExp(
  `[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029\\ufeff\\ufffe\\uffff${BIDI_CONTROLS}]`,
);
const ESCAPED_ALL = new RegExp(ESCAPED.source, "g");

/** Escapes YAML 1.1 and 1.2 both read; the three YAML 1.1 line breaks get their own. */
const NAMED_ESCAPES: Record<string, string> = { "\u0085": "\\N", "\u2028": "\\L", "\u2029": "\\P" };

/** Whether `s` holds a character escapeYamlText escapes (so it may only be written double-quoted). */
export const needsEscape = (s: string): boolean => ESCAPED.test(s);

const hex = (c: string) => c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");

/**
 * `text` with each character of ESCAPED as a YAML escape (\N, \L, \P, \uNNNN). Valid where such a character can
 * only be: inside a double-quoted scalar, or in a comment (where it is then plain text).
 */
export const escapeYamlText = (text: string): string => text.replace(ESCAPED_ALL, (c) => NAMED_ESCAPES[c] ?? `\\u${hex(c)}`);

/** The same characters as JSON escapes (\uNNNN), for JSON text (which a YAML reader may read too). */
export const escapeJsonText = (text: string): string => text.replace(ESCAPED_ALL, (c) => `\\u${hex(c)}`);

/**
 * A plain scalar that no reader takes for anything else: it starts with a letter, `_` or `(`, holds only letters,
 * marks, digits, `_ . / ( ) + & @ ' ! * % = ~ $ -`, single spaces inside, `:` not before a space or the end and `#`
 * not after a space (which would end the scalar or start a comment), no flow indicators, and is none of the words
 * YAML 1.1 or 1.2 read as a boolean or null, in any case. Deliberately narrower than any one reader: what starts
 * with a digit, a sign or a dot (numbers, dates, .inf) is quoted, whatever it holds.
 */
const PLAIN = /^[\p{L}_(](?:[\p{L}\p{M}\p{N}_./()+&@'!*%=~$-]| (?! |$)|:(?! |$)|(?<! )#)*$/u;
const WORDS = new Set(["y", "n", "yes", "no", "on", "off", "true", "false", "null"]);

/** Whether `s` may be written as a plain scalar (key or value): yaml.v3, YAML 1.1 and YAML 1.2 read back `s`. */
export function isPlainSafe(s: string): boolean {
  return PLAIN.test(s) && !WORDS.has(s.toLowerCase());
}

/** An integer written with a leading zero (0123, -010, 0_7): yaml.v3 and YAML 1.1 read octal, YAML 1.2 decimal. */
const LEADING_ZERO = /^\s*[-+]?0[0-9_]*[0-9][0-9_]*\s*$/;

/** Why the number text `text` cannot stand in a stack file, or undefined: readers would take it for other numbers. */
export function leadingZeroProblem(text: string): string | undefined {
  if (!LEADING_ZERO.test(text)) return undefined;
  const digits = text.replace(/[\s_+-]/g, "");
  const sign = text.trim().startsWith("-") && /[1-9]/.test(digits) ? "-" : "";
  const decimal = `${sign}${digits.replace(/^0+(?=.)/, "")}`;
  const readers = /^[0-7]+$/.test(digits)
    ? `the Pulumi CLI (yaml.v3) and YAML 1.1 read it as octal ${sign}${parseInt(digits, 8)}, YAML 1.2 as ${decimal}`
    : `YAML readers do not all read it as ${decimal}`;
  return `${text.trim()} has a leading zero: ${readers}; write ${decimal}`;
}

/** Half of a UTF-16 surrogate pair without its other half: JSON can carry one, no UTF-8 file can. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why no stack file can hold `v` (a string, or a list of them) as it is, or undefined. */
export function unwritableProblem(v: unknown): string | undefined {
  const m = (Array.isArray(v) ? v : [v]).map((s) => (typeof s === "string" ? LONE_SURROGATE.exec(s) : null)).find(Boolean);
  if (!m) return undefined;
  const code = m[0].charCodeAt(0).toString(16).toUpperCase();
  return `holds an unpaired surrogate (U+${code}), which a UTF-8 file cannot hold: the readers would see another character`;
}

// What the Pulumi CLI's reader (gopkg.in/yaml.v3 v3.0.1, resolve.go) takes a plain scalar for where YAML 1.2's core
// schema (the `yaml` package: this package's readers) keeps it a string. A scalar starting with a digit or a sign
// is tried as a timestamp (YYYY- first, then Go's layouts 2006-1-2, 2006-1-2 15:4:5.999999999 and RFC 3339 with
// short fields), then, with every `_` removed, as an integer in Go's base-0 syntax (0x, 0o, 0b, a leading 0 for
// octal, a sign) and as a float of YAML's own shape.

const TIME = String.raw`(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?`;
const DATE = String.raw`(\d{4})-(\d{1,2})-(\d{1,2})`;
const TIMESTAMP = [
  new RegExp(String.raw`^${DATE}$`),
  new RegExp(String.raw`^${DATE} ${TIME}$`),
  new RegExp(String.raw`^${DATE}[Tt]${TIME}(?:Z|[+-]\d{2}:\d{2})$`),
];
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)$/;
const GO_DOT_FLOAT = /^\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?$/;
const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);

/** Whether Go's time.Parse takes `text` in one of yaml.v3's layouts (fields in range, the day in its month). */
function isGoTimestamp(text: string): boolean {
  for (const layout of TIMESTAMP) {
    const m = layout.exec(text);
    if (!m) continue;
    const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1).map((f) => (f === undefined ? 0 : Number(f)));
    if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
    return hour < 24 && minute < 60 && second < 60;
  }
  return false;
}

/**
 * What the Pulumi CLI reads the plain scalar `plain` as, when YAML 1.2 reads it as this text: "a date" or "a
 * number"; undefined when the CLI reads the same text too. Only meaningful for a scalar the `yaml` package read
 * as a string.
 */
export function cliReadsPlainAs(plain: string): "a date" | "a number" | undefined {
  // A leading dot: Go's own float syntax, underscores between digits allowed (.0_5); .inf and .nan YAML 1.2 reads too.
  if (plain.startsWith(".")) return GO_DOT_FLOAT.test(plain) ? "a number" : undefined;
  if (!/^[-+0-9]/.test(plain)) return undefined;
  if (/^\d{4}-/.test(plain) && isGoTimestamp(plain)) return "a date";
  const digits = plain.replace(/_/g, "");
  if (GO_INT.test(digits) && fitsGoInt(digits)) return "a number";
  // yaml.v3's own 0b and 0o branches parse what follows the prefix, a sign included (0b-1, 0o+7).
  const prefixed = /^0([bo])([-+]?)([0-9]+)$/.exec(digits);
  if (prefixed && new RegExp(`^[0-${prefixed[1] === "b" ? 1 : 7}]+$`).test(prefixed[3])) {
    const value = BigInt(`0${prefixed[1]}${prefixed[3]}`) * (prefixed[2] === "-" ? -1n : 1n);
    if (value >= INT64_MIN && value <= UINT64_MAX) return "a number";
  }
  // Go's ParseFloat refuses what overflows a float64 (9e910): the CLI then keeps the text.
  return YAML_FLOAT.test(digits) && Number.isFinite(Number(digits)) ? "a number" : undefined;
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** Whether Go's ParseInt or ParseUint (base 0) takes `digits`: a leading 0 is octal, and the value fits 64 bits. */
function fitsGoInt(digits: string): boolean {
  const negative = digits.startsWith("-");
  const body = digits.replace(/^[-+]/, "");
  const octal = /^0[0-9]+$/.test(body);
  if (octal && /[89]/.test(body)) return false;
  const value = BigInt(octal ? `0o${body.slice(1)}` : body) * (negative ? -1n : 1n);
  return value >= INT64_MIN && value <= UINT64_MAX;
}

/** Why a plain `plain` cannot stand in a stack file as text (the CLI reads it as a date or number), or undefined. */
export function plainTextProblem(plain: string): string | undefined {
  const as = cliReadsPlainAs(plain);
  if (!as) return undefined;
  const example = as === "a date" && /^\d{4}-\d{1,2}-\d{1,2}$/.test(plain) ? ` (as "${goDateText(plain)}")` : "";
  return `is read by the Pulumi CLI (yaml.v3) as ${as}${example}, not as this text; quote it: "${plain}"`;
}

/** An integer both readers write alike as a key's text: Go's %v and JavaScript's String give the same digits. */
const SAME_INTEGER_KEY = /^[-+]?(?:0|[1-9][0-9]*|0x[0-9a-fA-F]+|0o[0-7]+)$/;

/**
 * Why a plain map key `source` (which the `yaml` package read as `read`) names another key for the Pulumi CLI, or
 * undefined. A tenant's or consumer's key names its resource, so the resource and its URN would differ from what
 * `validate` shows: `0123:` is 83 there and 123 here, `1_000:` 1000 and "1_000", `2024-01-01:` a timestamp's text,
 * `1.5e10:` Go's 1.5e+10 and JavaScript's 15000000000. Export quotes every such key; written by hand, it is refused.
 */
export function cliKeyProblem(source: string, read: unknown): string | undefined {
  const zero = leadingZeroProblem(source);
  if (zero) return `the key ${zero}`;
  if (typeof read === "string") {
    const problem = plainTextProblem(source);
    return problem && `the key ${source} ${problem}`;
  }
  if (typeof read === "number" && Number.isSafeInteger(read) && SAME_INTEGER_KEY.test(source)) return undefined;
  if (typeof read === "boolean") return undefined;
  return `the key ${source} is not text, and the Pulumi CLI (Go) and this reader (JavaScript) name it differently; quote it: "${source}"`;
}

/** Go's %v text of the date-only timestamp `day` (2024-1-2 → 2024-01-02 00:00:00 +0000 UTC), what the CLI hands on. */
function goDateText(day: string): string {
  const [y, m, d] = day.split("-");
  return `${y}-${m.padStart(2, "0")}-${d.padStart(2, "0")} 00:00:00 +0000 UTC`;
}

/** Go's %v text of a time.Time: what the program gets where a stack file holds a plain timestamp. */
const GO_TIME_TEXT = /^(\d{4}-\d{2}-\d{2}) \d{2}:\d{2}:\d{2}(?:\.\d+)? [+-]\d{4} [A-Za-z0-9+-]+$/;

/**
 * Why a text value the program got looks like a timestamp the CLI read from a plain scalar (`name: 2024-01-01` in
 * the stack file arrives as "2024-01-01 00:00:00 +0000 UTC"), or undefined. Nobody names a tenant in Go's time
 * format; a plain date in the file does it without the author seeing.
 */
export function cliTimestampProblem(text: string): string | undefined {
  const m = GO_TIME_TEXT.exec(text);
  if (!m) return undefined;
  return (
    `arrived as "${text}": the Pulumi CLI reads a plain date in the stack file as a timestamp; ` +
    `quote the value in the stack file (e.g. "${m[1]}")`
  );
}
