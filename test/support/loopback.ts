// A test's own HTTP server on loopback: listen on a free port, close with its open connections.
import * as http from "node:http";
import { AddressInfo } from "node:net";

/** Listens on 127.0.0.1 at a free port; resolves with the server's base URL. */
export async function listenLoopback(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server and every connection still open to it (keep-alive sockets would hold it open). */
export async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}
