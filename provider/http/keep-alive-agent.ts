// The portal client's connection pool: keep-alive, at most `maxSockets` connections, and a freed connection that
// a queued request is waiting for handed over one turn of the event loop later than Node's agent would.
//
// Why the delay: node-fetch 2 checks a chunked answer when its response closes, and calls it a "Premature close"
// when its connection has a data listener at that moment. A connection the agent has already given to the next
// waiting request has one, so every answer that frees a connection to a queue fails although it arrived whole
// (https://github.com/node-fetch/node-fetch/issues/1767). One setImmediate lets the finished response close first.
// With no request waiting the connection is put back at once, as Node does: the next call, one after another,
// reuses it, and nothing of the finished request (its headers hold the token) stays attached to it.
import * as http from "http";
import * as https from "https";
import type { Socket } from "net";

type FreeHandler = (socket: Socket, options: http.ClientRequestArgs) => void;

export function keepAliveAgent(url: string, maxSockets: number): http.Agent {
  const agent = new (url.startsWith("https:") ? https.Agent : http.Agent)({ keepAlive: true, maxSockets });
  const handlers = agent.listeners("free") as FreeHandler[];
  agent.removeAllListeners("free");
  agent.on("free", (socket: Socket, options: http.ClientRequestArgs) => {
    const handOver = () => {
      for (const handle of handlers) handle.call(agent, socket, options);
    };
    if (!agent.requests[agent.getName(options)]?.length) return handOver();
    // Node took the request's error listener off before freeing the connection; until the agent takes it, a
    // reset must not be an unhandled error (the handler then finds it unwritable and drops it).
    const reset = () => undefined;
    socket.on("error", reset);
    setImmediate(() => {
      socket.off("error", reset);
      handOver();
    });
  });
  return agent;
}
