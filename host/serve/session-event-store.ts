import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

interface StoredEvent {
  streamId: StreamId;
  /**
   * The message as JSON, not the object: a small JSON-RPC object costs the
   * heap several times its serialized size, so holding the text keeps the
   * memory a session's store uses close to the bytes it counts against its
   * bound (measured: holding objects, the soak's live heap grew 45 to 101 MiB
   * in 40 s with ten sessions calling tools).
   */
  json: string;
  /** `json`'s size in bytes, as counted against the bound (counted once, when stored). */
  bytes: number;
  /** The event's number in the session (its id's `n`). */
  count: number;
}

/**
 * One 2025-era session's SSE events, kept so a client that lost a stream
 * (its connection dropped, or a plugin asked to close it mid-call) can
 * reconnect with `Last-Event-ID` and get what it missed: the SDK's
 * transport stores every event it sends here and replays from here.
 *
 * Bounded in bytes (`http.eventStoreBytes`): over the bound the oldest
 * events are dropped, and `onDrop` says so once per session. A client
 * asking to resume after a dropped event is refused by the session
 * (`missed`), since replaying with a silent gap would lose messages
 * without anyone knowing.
 *
 * Event ids are `<stream>_<n>`, `n` counting up over the session: an id
 * alone tells its stream, and whether it was dropped or never issued.
 */
export class SessionEventStore implements EventStore {
  private readonly events = new Map<EventId, StoredEvent>();
  private bytes = 0;
  private next = 1;
  /** The count of the oldest event still held; anything this session issued below it was dropped. */
  private oldest = 1;
  private toldDrop = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onDrop: (dropped: number) => void,
  ) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const count = this.next++;
    const eventId = `${streamId}_${count}`;
    const json = JSON.stringify(message);
    const bytes = Buffer.byteLength(json);
    this.events.set(eventId, { streamId, json, bytes, count });
    this.bytes += bytes;
    if (this.bytes > this.maxBytes) this.dropOverBound();
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.events.get(lastEventId);
    if (!last) throw new Error(`no event ${lastEventId} is held to resume after`);
    let after = false;
    for (const [eventId, event] of this.events) {
      // '{}' is the SDK's priming event (an empty message that only carries an id to resume from).
      if (after && event.streamId === last.streamId && event.json !== '{}') {
        await send(eventId, JSON.parse(event.json) as JSONRPCMessage);
      }
      if (eventId === lastEventId) after = true;
    }
    return last.streamId;
  }

  /**
   * Why a resumption after `eventId` cannot be served, or undefined when it
   * can (or the id is not this store's: the transport answers those).
   */
  missed(eventId: string): string | undefined {
    if (this.events.has(eventId)) return undefined;
    const count = Number(/_(\d+)$/.exec(eventId)?.[1]);
    if (!Number.isInteger(count) || count >= this.oldest || count >= this.next) return undefined;
    return `the events after ${eventId} are no longer held: this session keeps its last ${this.maxBytes} bytes of events (http.eventStoreBytes), and older ones were dropped`;
  }

  private dropOverBound(): void {
    let dropped = 0;
    // The newest event stays even when it alone is over the bound: a client may resume after it.
    for (const [eventId, event] of this.events) {
      if (this.bytes <= this.maxBytes || this.events.size === 1) {
        this.oldest = event.count;
        break;
      }
      this.events.delete(eventId);
      this.bytes -= event.bytes;
      dropped += 1;
    }
    if (dropped === 0) return;
    if (!this.toldDrop) {
      this.toldDrop = true;
      this.onDrop(dropped);
    }
  }
}
