import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { HostRuntime } from '../runtime.js';
import { serveStdioAs } from '../vocabulary/identity.js';
import { createFrontSession } from '../proxy/front-server.js';
import type { FrontSession } from '../proxy/front-session.js';
import { StdioWire } from './stdio-wire.js';
import { HotPathTransport } from '../proxy/hot-path.js';
import { stdioListenTracer } from './stdio-listens.js';

export interface StdioService {
  /** Resolves when the client closed stdin. */
  readonly ended: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serve the host's catalogue (or the virtual server `server` of it) to one
 * client over this process's stdin and stdout. The SDK's entry decides the era from the client's opening (an
 * `initialize`, or a 2026-07-28 `server/discover`) and pins one front server
 * for the connection.
 */
export function serveOverStdio(runtime: HostRuntime, server?: string): StdioService {
  let session: FrontSession | undefined;
  // `mcp-host start --server NAME`: the client is one of that virtual server's.
  const identity = serveStdioAs(server);
  const wire = new StdioWire();
  wire.observer = stdioListenTracer();
  const handle = serveStdio(
    ({ era }) => {
      // The entry may build a probe instance for `server/discover` and discard
      // it when the client falls back to `initialize`: one connection, so the
      // newest instance is the one being served.
      if (session) runtime.sessions.remove(session);
      session = createFrontSession(runtime, {
        longLived: true,
        era,
        clientName: () => 'the stdio client',
        identity,
      });
      return session.server;
    },
    {
      // The SDK's own wire leaves malformed input unanswered; this one answers it (see StdioWire).
      // Calls, prompts and reads skip the front server's second dispatch (hot-path.ts).
      transport: new HotPathTransport(
        wire,
        runtime,
        () => session?.server,
        () => session?.scope,
      ),
      onerror: (error) => runtime.logger.debug({ err: error }, 'stdio connection error'),
    },
  );
  // What the client sends makes its session active (`mcp-host status`): a chunk's arrival, not each message, is
  // enough for "a request in the last minute", and costs the hot path nothing per call.
  process.stdin.on('data', () => {
    if (session) session.lastActive = Date.now();
  });
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  return { ended, close: () => handle.close() };
}
