// Which strings may be written as plain YAML scalars, and how the rest is escaped, for every YAML text this
// package writes from values it does not control (the stack file of `backup-portal export`, cloud-init user data).
// Three readers must read each value back as the same string: the Pulumi CLI's gopkg.in/yaml.v3 (timestamps such
// as 2024-01-01, numbers such as 1_000 and 0123 as octal), YAML 1.1 readers (yes/no/on/off/y/n as booleans,
// sexagesimal 1:20, PyYAML) and YAML 1.2's core schema (the `yaml` package). YAML 1.1 readers also end a line at
// U+0085, U+2028 and U+2029, so such a character written raw lets a value start a new key.

/** Line breaks of YAML 1.1 (yaml.v3, PyYAML) and of sh; YAML 1.2 counts only CR and LF. */
export const YAML11_LINE_BREAKS = /[\r\n\u0085\u2028\u2029]/;

/**
 * Characters never written raw: those yaml.v3 and PyYAML refuse in a stream (C0 and C1 controls but tab, LF and CR;
 * DEL; U+FFFE, U+FFFF), the YAML 1.1 line breaks U+0085, U+2028 and U+2029, the byte order mark, and the bidi
 * controls, which would make a reviewer read a value in another order than the readers do.
 */
const ESCAPED =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
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
