import { createServer, connect, type Server, type Socket } from "node:net";
import { freePort } from "./next-server.mjs";

/**
 * A TCP forwarder on 127.0.0.1 that a test can cut and restore: the server under test reaches
 * PostgreSQL (or anything) through it, and `cut()` is an outage as the server sees one — every
 * open connection reset, new ones refused — until `restore()` listens on the same port again.
 * `freeze()` is the quieter fault: the open connections stay open but carry nothing more either
 * way (a failover, a NAT that forgot the flow), while new connections work. `pause()` holds what
 * the clients send on the open connections until `resume()` delivers it: a stall.
 */
export interface TcpProxy {
  port: number;
  readonly up: boolean;
  cut(): Promise<void>;
  freeze(): void;
  pause(): void;
  resume(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let server: Server | undefined;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => sockets.delete(socket));
          socket.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        const pair: [Socket, Socket] = [client, upstream];
        pairs.add(pair);
        client.on("close", () => pairs.delete(pair));
        client.pipe(upstream).pipe(client);
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        server = s;
        resolve();
      });
    });

  const cut = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  return {
    port,
    get up() {
      return server !== undefined;
    },
    cut,
    freeze: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        // The far side is let go (nothing more reaches it); the client's side stays open and silent.
        upstream.destroy();
      }
      pairs.clear();
    },
    pause: () => {
      for (const [client] of pairs) client.pause();
    },
    resume: () => {
      for (const [client] of pairs) client.resume();
    },
    restore: async () => {
      if (!server) await listen();
    },
    close: cut,
  };
}
