// Reading a multipart/form-data body (RFC 7578): the parts with their
// Content-Disposition name and filename, Content-Type and content.
import { validation } from "./errors";

export interface FormPart {
  name?: string;
  filename?: string;
  contentType?: string;
  content: Buffer;
}

/** The boundary of a `multipart/form-data` Content-Type, or undefined for any other type. */
export function formBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType.trim())) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!m) throw validation("A multipart/form-data body needs a boundary parameter");
  return m[1] ?? m[2];
}

/** The parts of a multipart body; a 400 when it is not well formed. */
export function parseForm(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) throw validation("The multipart body does not contain its boundary");
  // Bounded: each pass moves past one delimiter.
  for (let guard = 0; guard < 1000; guard++) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === "--") return parts;
    if (body.subarray(at, at + 2).toString() !== "\r\n") break;
    const next = body.indexOf(Buffer.concat([Buffer.from("\r\n"), delimiter]), at);
    if (next < 0) break;
    const part = body.subarray(at + 2, next);
    const split = part.indexOf("\r\n\r\n");
    if (split < 0) break;
    const headers = part.subarray(0, split).toString("utf8").split("\r\n");
    const header = (name: string): string | undefined =>
      headers
        .find((h) => h.toLowerCase().startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim();
    const disposition = header("content-disposition") ?? "";
    parts.push({
      name: /;\s*name="([^"]*)"/i.exec(disposition)?.[1],
      filename: /;\s*filename="([^"]*)"/i.exec(disposition)?.[1],
      contentType: header("content-type"),
      content: part.subarray(split + 4),
    });
    at = next + 2;
  }
  throw validation("The multipart body is not well formed");
}
