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
  ownerOfSession(id: string): Promise<Peer | 'gone' | undefined>;
  peer(replica: string): Promise<Peer | undefined>;
  /** The forwarded request's client, or why its stamp (PEER_HEADER) is refused. */
  admit(stamp: string): { clientId: string | undefined } | { refused: string };
  forward(request: Request, peer: Peer, clientId: string | undefined): Promise<Response | Unforwarded>;
}

/**
 * The header a replica puts on a request it forwards to another: when it
 * was sent, which bearer token the client used (the owner checks a session
 * belongs to it), and a MAC over both with a key derived from the cluster
 * secret. Only replicas hold the secret, so only they can send one.
 */
export const PEER_HEADER = 'x-mcp-host-peer';

/** Another replica as Redis knows it: where it is reached, and how long ago its heartbeat renewed its entry. */
export interface Peer {
  url: string;
  heardMsAgo: number;
}

/** A request another replica could not be sent: why, and whether that replica is running all the same. */
export interface Unforwarded {
  unreachable: string;
  running: boolean;
}
