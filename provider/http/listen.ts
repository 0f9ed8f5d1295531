// Starting one of the product's own HTTP services (the billing receiver, the registration broker): a malformed
// request gets a bare 400 and its socket closed, and the service listens before its handle is returned.
import * as http from "http";
import { AddressInfo } from "net";

/** Listens on `host`:`port` (0: any free port); resolves with the port and the service's base URL. */
export async function listen(server: http.Server, host: string, port: number): Promise<{ port: number; url: string }> {
  server.on("clientError", (_err, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return { port: bound, url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}` };
}
