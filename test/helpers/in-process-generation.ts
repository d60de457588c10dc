/**
 * A catalogue generation in the test's own process, for the rules tests
 * (test/rules/) of modules that read one, without a host process or an
 * HTTP endpoint. Two ways to make one:
 *
 * - `composeInProcess`: composed from a config file as the host composes it,
 *   its plugins real packages ('none'-isolated, imported here);
 *   for rules about what a plugin serves (the audit's who and what).
 * - `inProcessGeneration`: a config checked as the host checks it, and
 *   mounts whose upstream is a recorder instead of a plugin: each lists the
 *   tools given and answers each call with a text naming the mount and the
 *   tool, so that a test sees where a call went and with what hooks
 *   (call limits, discovery).
 */
import { composeCatalogue } from '../../host/catalogue/compose.js';
import { validateConfig } from '../../host/config/validate.js';
import { Generation } from '../../host/catalogue/generation.js';
import { createLogger } from '../../host/log.js';
import type { RemoteSpec } from '../../host/loader/types.js';
import { Mount, type MountEvents } from '../../host/mounts/mount.js';
import type { UpstreamPeer } from '../../host/mounts/upstream-peer.js';
import type { CallHooks } from '../../host/vocabulary/call-hooks.js';
import type { ListItem } from '../../host/vocabulary/list-kinds.js';
import type { Teardown } from './host.js';

/** Nothing a test of a generation's rules listens to. */
const IGNORED: MountEvents = { onNotification() {}, onClose() {}, onStateChange() {} };

/** The generation `configFile` composes; its mounts closed when the test ends. */
export async function composeInProcess(t: Teardown, configFile: string, cwd: string): Promise<Generation> {
  const { generation } = await composeCatalogue({
    configPath: configFile,
    cwd,
    logger: createLogger('silent'),
    events: IGNORED,
    id: 1,
    withLock: false,
  });
  t.teardown(() => Promise.all(generation.mounts.map((mount) => mount.close())).then(() => undefined));
  return generation;
}

/** One mounted upstream: its prefix and its tools (a name, or a whole definition). */
export interface RecordedMount {
  prefix: string;
  tools: (string | ListItem)[];
}

/** A call an upstream received. */
export interface ReceivedCall {
  prefix: string;
  method: string;
  params: Record<string, unknown> | undefined;
  hooks: CallHooks | undefined;
}

/**
 * A generation of `config` (as a config file exports it, without `plugins`:
 * one url entry per mount is added) serving `mounts`, and the calls they
 * receive, in order.
 */
export function inProcessGeneration(
  config: Record<string, unknown>,
  mounts: RecordedMount[],
): { generation: Generation; received: ReceivedCall[] } {
  const plugins = mounts.map(({ prefix }) => ({ url: `http://127.0.0.1:9/${prefix}`, prefix }));
  const resolved = validateConfig({ ...config, plugins }, '/nowhere/mcp-host.config.js');
  const received: ReceivedCall[] = [];
  const logger = createLogger('silent');
  const made = mounts.map(({ prefix, tools }, index) => {
    const spec: RemoteSpec = {
      kind: 'remote',
      url: plugins[index]!.url,
      headers: {},
      index,
      path: `plugins[${index}]`,
      label: prefix,
      prefix,
      flat: false,
      timeoutMs: 10_000,
      maxResultBytes: 1_000_000,
      maxListPages: 10,
      forwardHeaders: [],
      curation: {},
      fingerprint: prefix,
    };
    const peer = {
      inFlight: 0,
      request: (method: string, params?: Record<string, unknown>, hooks?: CallHooks) => {
        received.push({ prefix, method, params, hooks });
        return Promise.resolve({ content: [{ type: 'text', text: `${prefix} ran ${String(params?.name)}` }] });
      },
    } as unknown as UpstreamPeer;
    const handshake = {
      protocolVersion: '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: prefix, version: '1.0.0' },
    };
    const mount = new Mount(spec, peer, handshake, logger);
    mount.items.tools = tools.map((tool) =>
      typeof tool === 'string' ? { name: tool, inputSchema: { type: 'object' } } : tool,
    );
    return mount;
  });
  return { generation: new Generation(1, resolved, made), received };
}
