// A URL as it may be shown: in doctor's report, register's progress and errors, the billing receiver's log and
// every error message. `http://user:pass@host` carries credentials in its userinfo; shown, it hands them to
// whoever reads the terminal, the CI log or `kubectl logs`. Every place that shows a URL shows maskUrl(url).

/** The userinfo of a URL (what stands before the last `@` of its authority) replaced by `***`; else the text as it is. */
export function maskUrl(url: string): string {
  const masked = maskUserinfoText(url);
  // What the WHATWG parser (fetch, the portal client) still finds in the text is credentials all the same (a tab
  // inside the scheme, which it drops): shown as it serializes the URL, with its userinfo masked.
  let parsed: URL | undefined;
  try {
    parsed = new URL(masked);
  } catch {
    return masked;
  }
  if (parsed.password === "" && (parsed.username === "" || parsed.username === "***")) return masked;
  parsed.username = "";
  parsed.password = "";
  return parsed.href.replace(/^([a-z][a-z0-9+.-]*:\/\/)/i, "$1***@");
}

/** maskUrl on the text alone. */
function maskUserinfoText(url: string): string {
  // Works on the text, not on a parsed URL: a value that is no URL (shown in the error that says so) may
  // still carry credentials, and the parser would re-encode the rest of what is shown.
  // Where the authority starts as the WHATWG parser finds it: after leading blanks, the scheme and any run of
  // slashes or backslashes (`http:\\user:pass@host`, `http:user:pass@host`, `//user:pass@host` all carry
  // userinfo). Text that has neither is masked from its start: over-masking shows less, never more.
  const lead = /^[\u0000-\u0020]*(?:([a-z][a-z0-9+.-]*):)?([\\/]*)/i.exec(url)!;
  const special = lead[1] !== undefined && /^(?:https?|wss?|ftp|file)$/i.test(lead[1]);
  const start = special || lead[2] !== "" ? lead[0].length : 0;
  const rest = url.slice(start);
  // The authority ends at the path, query or fragment (a backslash ends it too for http(s) in WHATWG URLs).
  const end = rest.search(/[/?#\\]/);
  const authority = end >= 0 ? rest.slice(0, end) : rest;
  const at = authority.lastIndexOf("@");
  if (at < 0) return url;
  return url.slice(0, start) + "***" + url.slice(start + at);
}

/**
 * Every URL's userinfo in a free text masked: for messages a library writes with the URL in them (node-fetch's
 * "request to <url> failed"). Those URLs are serialized (WHATWG), so their userinfo holds no white space nor a
 * raw `@`, `/`, `?` or `#`.
 */
export function maskUrlsIn(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, "$1***@");
}
