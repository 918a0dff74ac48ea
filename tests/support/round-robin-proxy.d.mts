export interface RoundRobinProxy {
  url: string;
  port: number;
  /** Requests sent to each upstream so far. */
  served: number[];
  close(): Promise<void>;
}
export function startRoundRobinProxy(upstreams: string[], port?: number): Promise<RoundRobinProxy>;
