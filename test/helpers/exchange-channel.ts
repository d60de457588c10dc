// The channel a remote mount with token exchange speaks through, opened on
// its own: a test sends calls on it as any identity it makes up, which the
// host's front could only do for identities a real client authenticated as.
import { createLogger } from '../../host/log.js';
import type { RemoteSpec } from '../../host/loader/types.js';
import { RemoteChannel } from '../../host/mounts/remote.js';
import { until, type Teardown } from './host.js';
import { EVENT_MS } from './timing.js';

export interface ExchangeChannel {
  channel: RemoteChannel;
  /** Every answer the channel received, by request id. */
  answers: Map<unknown, unknown>;
}

/** A `RemoteChannel` to `url` with `auth.tokenExchange` as client `mcp-host` of `issuer`, initialized at 2025-06-18. */
export async function openExchangeChannel(
  t: Teardown,
  url: string,
  secret: string,
  issuer: string,
): Promise<ExchangeChannel> {
  const spec: RemoteSpec = {
    kind: 'remote',
    url,
    headers: {},
    auth: { mode: 'tokenExchange', clientId: 'mcp-host', secret: { kind: 'clientSecret', value: secret }, issuer },
    index: 0,
    path: 'plugins[0]',
    label: 'p',
    prefix: 'p',
    flat: false,
    // A call's round trip through the exchange: an event, bounded as the suite bounds one.
    timeoutMs: EVENT_MS,
    maxResultBytes: 1 << 20,
    maxListPages: 10,
    forwardHeaders: [],
    curation: {},
    fingerprint: 'test',
  };
  const channel = new RemoteChannel(spec, createLogger('silent'));
  const answers = new Map<unknown, unknown>();
  channel.onmessage = (message) => {
    if ('id' in message) answers.set(message.id, message);
  };
  t.teardown(() => channel.close());
  await channel.start();
  await channel.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await until('the answer to initialize', () => answers.has(1));
  await channel.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { channel, answers };
}
