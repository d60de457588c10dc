import type { Identity } from '../vocabulary/identity.js';

/**
 * What the serving layer asks of this replica's cluster, when the host is
 * one of several replicas (DESIGN.md, "Scale"). cluster/cluster.ts
 * implements it over Redis and is wired in at start (commands/start.ts):
 * the layers that call it never load Redis themselves.
 */
export interface ClusterLink {
  /** This replica's id, which the host's continuation states name. */
  readonly replica: string;
  /** Why the cluster cannot be consulted now (Redis out of reach), or undefined. */
  readonly degraded: string | undefined;
  registerSession(id: string, token: string | undefined): Promise<void>;
  forgetSession(id: string): void;
  /** How many sessions a bearer token holds across the replicas; undefined when that cannot be looked up now. */
  sessionsHeldBy(token: string): Promise<number | undefined>;
  ownerOfSession(id: string): Promise<Peer | 'gone' | typeof UNTRUSTED | undefined>;
  peer(replica: string): Promise<Peer | typeof UNTRUSTED | undefined>;
  /** A forwarded request's stamp (PEER_HEADER), its MAC, target and time checked; or why it is refused. */
  admit(stamp: string, request: StampedRequest): PeerStamp | { refused: string };
  /** The rest of a forwarded request's check once its body is read: undefined when it is admitted, else why not. */
  consume(stamp: PeerStamp, read: ReadBody, legacy: boolean): Promise<string | undefined>;
  /** `identity`: who the client is, as this replica verified it; it travels in the stamp, without its token. */
  forward(
    read: ReadBody,
    peer: Peer,
    clientId: string | undefined,
    identity?: Identity,
  ): Promise<Response | Unforwarded>;
}

/**
 * The header a replica puts on a request it forwards to another (DESIGN.md,
 * "Scale"). Its MAC, under a key derived from the cluster secret, covers
 * the request's method, path, session id and a digest of its body, the
 * replica it is sent to, when it was sent, a nonce, the replica that sent
 * it and which client that replica authenticated. So a stamp authorises
 * exactly the one request it came with, at the one replica it was sent
 * to, once, within seconds: captured from the wire (plain HTTP between
 * replicas) it opens nothing else, not even the same request again.
 */
export const PEER_HEADER = 'x-mcp-host-peer';

/** What a lookup answers for a Redis record that failed its check, and was not followed (logged by then). */
export const UNTRUSTED = 'untrusted';

/** A request whose body was read once (serve/node-exchange.ts's ReadRequest). */
export interface ReadBody {
  request: Request;
  json: unknown;
  text: string;
  /** The request carrying its body, to forward. */
  withBody(): Request;
}

/** What a stamp binds of its request, besides the body. */
export interface StampedRequest {
  method: string;
  /** The request's path and query, as the receiving replica reads it (`/mcp`). */
  path: string;
  sessionId: string | undefined;
}

/** A stamp whose MAC, target and time were checked: what it says, until its body and single use are (consume). */
export interface PeerStamp {
  /** The client the forwarding replica authenticated (its bearer token's name); undefined without bearer auth. */
  clientId: string | undefined;
  /** Who that client is, as the forwarding replica verified it (never with its token), when it knew. */
  identity?: Identity;
  /** The replica that forwarded it. */
  from: string;
  nonce: string;
  sentAt: number;
  bodyDigest: string;
}

/** Another replica as Redis knows it: its name, where it is reached, and how long ago its heartbeat renewed its entry. */
export interface Peer {
  replica: string;
  url: string;
  heardMsAgo: number;
}

/** A request another replica could not be sent: why, and whether that replica is running all the same. */
export interface Unforwarded {
  unreachable: string;
  running: boolean;
}
