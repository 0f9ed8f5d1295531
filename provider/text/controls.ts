// Text a tenant wrote (a name, a portal's error message) shown to an operator: its control characters are written
// out, so the text is shown and never obeyed by the terminal or the Pulumi CLI's display that prints it.

/**
 * C0 controls, DEL and C1 controls: a terminal acts on them instead of showing them (a consumer name holding
 * `ESC]0;...BEL` retitles the window, `ESC[2J` clears it, U+009B is an 8-bit CSI). Portal data is set by tenants.
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** `text` with every control character but those in `keep` written as `\xNN`, so it is shown, not obeyed. */
export function escapeControls(text: string, keep: readonly string[] = []): string {
  return text.replace(CONTROLS, (c) => (keep.includes(c) ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
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
