import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import type { SessionNotifier } from '../sinks/session-notifier.js';
import type { ChangedList } from '../vocabulary/list-kinds.js';
import { ANONYMOUS_IDENTITY, type Identity } from '../vocabulary/identity.js';
import { mayReach } from '../catalogue/routing.js';

/** The event that tells a listen stream one list changed. */
const LIST_EVENTS: Record<ChangedList, ServerEvent> = {
  tools: { kind: 'tools_list_changed' },
  prompts: { kind: 'prompts_list_changed' },
  resources: { kind: 'resources_list_changed' },
};

/** One open `subscriptions/listen` stream, as the runtime notifies it. */
export interface ListenStream extends SessionNotifier {
  readonly identity: Identity;
  /** Set when the stream ended: a subscription that completes later is dropped. */
  closed: boolean;
}

/**
 * The 2026-07-28 HTTP handler's `subscriptions/listen` streams, each known
 * to the runtime as its own notifier with the identity that opened it, so
 * that the access rules decide what each stream is told, as they do for a
 * 2025-era session (client-sessions.ts, runtime.ts, mount-events.ts).
 *
 * The SDK's handler keeps the streams: each one, as it opens, subscribes a
 * listener to the handler's event bus (its `bus` option), and that
 * listener filters by what the stream asked for and writes to it. The bus
 * is told nothing of who opened the stream, so the endpoint has the handler
 * answer each request inside `serving(identity, …)`: a listener subscribed
 * in that async context is a stream of that identity. Events reach a
 * stream only through its own notifier; nothing is published to all.
 */
export class ListenStreams implements ServerEventBus {
  private readonly servingAs = new AsyncLocalStorage<{
    identity: Identity;
    borrowed?: ChangedList;
    opened?: ListenStream;
  }>();

  constructor(private readonly runtime: HostRuntime) {}

  /**
   * Have the handler answer a request of `identity`'s; `opened` is the
   * listen stream it opened, if it did. `borrowed`: a list the request asks
   * the SDK for only to keep a stream open for what the SDK does not serve
   * (task-listens.ts); its changes are not told on the stream.
   */
  async serving(
    identity: Identity,
    answer: () => Promise<Response>,
    borrowed?: ChangedList,
  ): Promise<{ response: Response; opened?: ListenStream }> {
    const context: { identity: Identity; borrowed?: ChangedList; opened?: ListenStream } = {
      identity,
      ...(borrowed && { borrowed }),
    };
    const response = await this.servingAs.run(context, answer);
    return { response, ...(context.opened && { opened: context.opened }) };
  }

  /** Never used: a change told to all streams alike would ignore the access rules. */
  publish(event: ServerEvent): void {
    throw new Error(`mcp-host tells each listen stream through its own notifier, not ${event.kind} to all of them`);
  }

  /** A listen stream opened: it joins the runtime's sessions with its identity, until it closes. */
  subscribe(listener: (event: ServerEvent) => void): () => void {
    const context = this.servingAs.getStore();
    // Every request reaches the handler through serving(): an unknown opener is treated as anonymous.
    const identity = context?.identity ?? ANONYMOUS_IDENTITY;
    const { runtime } = this;
    const stream: ListenStream = {
      era: 'modern',
      subscriptions: new Set(),
      // A stream is no client's session: it is not counted as one.
      fansOut: true,
      identity,
      closed: false,
      listChanged(lists) {
        for (const list of lists) if (list !== context?.borrowed) listener(LIST_EVENTS[list]);
        return [...lists];
      },
      resourceUpdated({ uri, ...params }) {
        // Subscribed only to what it may read, but the rules may have reloaded since.
        if (!mayReach(runtime.current, uri, identity)) return;
        listener({ kind: 'resource_updated', uri, params: { ...params, uri } });
      },
    };
    if (context) context.opened = stream;
    runtime.sessions.add(stream);
    return () => {
      stream.closed = true;
      runtime.sessions.remove(stream);
    };
  }
}
