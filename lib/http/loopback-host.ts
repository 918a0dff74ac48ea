/** The hostnames (as `URL.hostname` writes them, IPv6 in brackets) that name this machine. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether a URL's hostname is this machine: where plain http is acceptable (development, native-app redirects). */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}
