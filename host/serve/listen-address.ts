/**
 * Where the host serves MCP. Besides it, /healthz and /readyz (health.ts); other paths are 404.
 * Here rather than in http.ts: a cluster's config reads it without loading the HTTP server.
 */
export const MCP_PATH = '/mcp';

export interface ListenAddress {
  /** Absent when only a port was given. */
  host?: string;
  port: number;
}

/**
 * `--http [HOST:]PORT`: `3000`, `127.0.0.1:3000`, `localhost:0`,
 * `[::1]:3000`. Throws a message naming what was wrong and the shape
 * expected.
 */
export function parseListenAddress(text: string): ListenAddress {
  const match = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d+)$/.exec(text.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new Error(
      `--http expects [HOST:]PORT with PORT from 0 to 65535 (e.g. 3000, 127.0.0.1:3000, [::1]:3000), got "${text}"`,
    );
  }
  const host = match[1]?.replace(/^\[(.*)\]$/, '$1');
  return host === undefined ? { port } : { host, port };
}

/** Whether binding `host` keeps the endpoint on this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}
