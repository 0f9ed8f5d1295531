// A multipart/form-data body (RFC 7578) holding one file, built as bytes so
// that the transport sends it as any other body.
import { randomBytes } from "crypto";

export interface FormFile {
  /** The form field's name. */
  field: string;
  fileName: string;
  contentType: string;
  content: Buffer;
}

/** The body and its Content-Type (with the boundary). */
export function multipartBody(file: FormFile): { body: Buffer; contentType: string } {
  const boundary = `----backup-portal-${randomBytes(12).toString("hex")}`;
  // Quotes, CR and LF cannot stand in a quoted header value: escape them as browsers do.
  const quoted = (v: string) => v.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.fileName)}"\r\n` +
    `Content-Type: ${file.contentType}\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head, "utf8"), file.content, Buffer.from(`\r\n--${boundary}--\r\n`, "utf8")]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
