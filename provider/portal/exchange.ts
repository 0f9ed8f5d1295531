// One HTTP request and its whole answer, sent with node-fetch 2 over the
// transport's keep-alive agent: a deadline that covers the answer's body too,
// and a cap on the answer's size, counted as the body streams in (decompressed
// bytes), so that an oversized answer is dropped before it is held in memory.
//
// node-fetch is imported under a name that is not a global: Pulumi's closure
// serializer does not capture a name that is also a global, so a `fetch`
// referenced from serialized code would silently become Node's own fetch. The
// providers load this module by its specifier (provider/dynamic/specifier.ts),
// so it is not serialized at all; the name keeps that true if that ever changes.
import * as http from "http";
import nodeFetch, { FetchError } from "node-fetch";
import { maskUrlsIn } from "../http/mask-url";

export { FetchError };

export interface Exchange {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** The connection pool; Node's global agent when absent. */
  agent?: http.Agent;
  /** Deadline for the whole exchange, the answer's body included. */
  timeoutMs: number;
  /** The largest answer body accepted, in bytes. */
  maxBytes: number;
}

export interface Answer {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
}

/** The request did not finish within its deadline (the connection is dropped). */
export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
  }
}

/** The answer's body is larger than the cap (the connection is dropped, the body never held). */
export class AnswerTooLargeError extends Error {
  constructor(
    readonly status: number,
    readonly maxBytes: number,
  ) {
    super(`the answer is larger than ${maxBytes} bytes`);
  }
}

export async function exchange(x: Exchange): Promise<Answer> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, x.timeoutMs);
  try {
    const res = await nodeFetch(x.url.toString(), {
      method: x.method,
      headers: x.headers,
      body: x.body,
      agent: x.agent,
      // A redirect is an error the caller reports; following it would send the bearer token elsewhere.
      redirect: "manual",
      // node-fetch 2 accepts any object whose prototype is named AbortSignal; Node's is one.
      signal: controller.signal as never,
    });
    // raw() is the answer's header lists as received; node-fetch 2's forEach rebuilds and sorts the whole
    // list once per header, which made it the largest part of reading an answer's headers.
    const headers: Record<string, string> = {};
    for (const [name, values] of Object.entries(res.headers.raw())) headers[name.toLowerCase()] = values.join(", ");
    const declared = Number(headers["content-length"]);
    // Content-Length counts the encoded bytes; only an unencoded body can be refused before it is read.
    if (!headers["content-encoding"] && declared > x.maxBytes) {
      controller.abort();
      throw new AnswerTooLargeError(res.status, x.maxBytes);
    }
    const text = await readCapped(res.body, x.maxBytes, () => controller.abort(), res.status);
    return { status: res.status, headers, text };
  } catch (err) {
    if (timedOut && !(err instanceof AnswerTooLargeError)) throw new TimeoutError(x.timeoutMs);
    // node-fetch names the URL in its message ("request to <url> failed"): never with credentials in it.
    if (err instanceof Error) err.message = maskUrlsIn(err.message);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The body as text; fails with AnswerTooLargeError, and calls `drop`, as soon as more than `maxBytes` arrived. */
async function readCapped(body: NodeJS.ReadableStream, maxBytes: number, drop: () => void, status: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      // Leaving the loop only stops reading; the abort ends the request and closes its connection.
      drop();
      throw new AnswerTooLargeError(status, maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}
