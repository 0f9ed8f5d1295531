// Text a tenant wrote (a name, a portal's error message) shown to an operator: its control characters are written
// out, so the text is shown and never obeyed by the terminal or the Pulumi CLI's display that prints it.

/**
 * The bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), as a character class's body: a
 * bidi-capable terminal or editor reorders the text after one (U+202E shows a row, or a value, right to left), so a
 * reader sees another order than the one printed or written. The one list of them (the YAML writer's too).
 */
export const BIDI_CONTROLS = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";

/**
 * C0 controls, DEL and C1 controls: a terminal acts on them instead of showing them (a consumer name holding
 * `ESC]0;...BEL` retitles the window, `ESC[2J` clears it, U+009B is an 8-bit CSI); and the bidi controls. Portal
 * data is set by tenants.
 */
const CONTROLS = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI_CONTROLS}]`, "g");

/**
 * `text` with every control character but those in `keep` written out (`\xNN`, a bidi control as `\uNNNN`), so it
 * is shown, not obeyed.
 */
export function escapeControls(text: string, keep: readonly string[] = []): string {
  return text.replace(CONTROLS, (c) => {
    if (keep.includes(c)) return c;
    const code = c.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16).toUpperCase().padStart(4, "0")}` : `\\x${code.toString(16).padStart(2, "0")}`;
  });
}

/**
 * A provider's error as the engine will print it: its message's controls escaped, line breaks kept (the
 * provider's own multi-line messages). The same object, so the fields the engine reads (a partial create's id
 * and properties) stay; anything thrown that is not an Error becomes one.
 */
export function printableError(e: unknown): Error {
  if (!(e instanceof Error)) return new Error(escapeControls(String(e), ["\n"]));
  const message = escapeControls(e.message, ["\n"]);
  if (message !== e.message) e.message = message;
  return e;
}
