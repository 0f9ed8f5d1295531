// A URL as it may be shown: in doctor's report, register's progress and errors, the billing receiver's log and
// every error message. `http://user:pass@host` carries credentials in its userinfo; shown, it hands them to
// whoever reads the terminal, the CI log or `kubectl logs`. Every place that shows a URL shows maskUrl(url).

/** The userinfo of a URL (what stands before the last `@` of its authority) replaced by `***`; else the text as it is. */
export function maskUrl(url: string): string {
  // Works on the text, not on a parsed URL: a value that is no URL (shown in the error that says so) may
  // still carry credentials, and the parser would re-encode the rest of what is shown.
  const scheme = url.indexOf("://");
  const start = scheme >= 0 ? scheme + 3 : 0;
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
