import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { freePort } from "./next-server.mjs";

/**
 * A throwaway `redis-server` the test owns (a child process on a free loopback port, no
 * persistence), so a test can take the rate-limit store away and bring it back on the same port
 * without touching the shared Redis on 6379.
 */
export interface RedisProcess {
  port: number;
  /** redis://127.0.0.1:<port> */
  url: string;
  /** Whether a redis-server is running on the port now. */
  readonly running: boolean;
  /** Starts redis-server on the same port again (after stop); resolves once it answers PING. */
  start(): Promise<void>;
  /** Stops it and waits for the process to exit. Idempotent. */
  stop(): Promise<void>;
}

/** One PING over a raw connection: true when Redis answers +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data: Buffer) => done(data.toString("latin1").startsWith("+PONG")));
  });
}

export async function startRedisProcess(): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let stderr = "";

  async function start(): Promise<void> {
    if (child && child.exitCode === null && child.signalCode === null) return;
    stderr = "";
    const spawned = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", tmpdir()],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    spawned.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString("utf8")).slice(-4_000);
    });
    child = spawned;
    const deadline = Date.now() + 10_000;
    while (!(await ping(port))) {
      if (spawned.exitCode !== null) throw new Error(`redis-server on port ${port} exited with ${spawned.exitCode}: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within 10 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function stop(): Promise<void> {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => running.kill("SIGKILL"), 5_000);
      running.once("exit", () => {
        clearTimeout(force);
        resolve();
      });
      running.kill("SIGTERM");
    });
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    start,
    stop,
  };
}
