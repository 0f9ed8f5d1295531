// Waiting for an event in a test: poll a condition with a bound, instead of sleeping a fixed time.

/** Polls `pred` every 10 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(pred: () => boolean | Promise<boolean>, what: string, timeoutMs = 10000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
