export interface RoundRobinProxy {
  url: string;
  port: number;
  /** Requests sent to each upstream so far. */
  served: number[];
  /** Requests sent again to each upstream because their reused connection was reset before any answer. */
  retried: number[];
  close(): Promise<void>;
}
export function startRoundRobinProxy(upstreams: string[], port?: number): Promise<RoundRobinProxy>;
