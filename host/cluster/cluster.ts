import { randomUUID } from 'node:crypto';
import type { createClient } from 'redis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CounterOptions } from '../sinks/call-counters.js';
import type { Logger } from '../log.js';
import { describeThrown } from '../errors.js';
import { settlesWithin } from '../settles-within.js';
import type { ClusterOptions } from './cluster-options.js';
import { PeerAuth, STAMP_WINDOW_MS, deriveKey } from './peer-auth.js';
import {
  PEER_HEADER,
  UNTRUSTED,
  type ClusterLink,
  type Peer,
  type PeerStamp,
  type ReadBody,
  type StampedRequest,
  type Unforwarded,
} from '../sinks/cluster.js';
import { holderOf, type StateSigning } from '../vocabulary/continuation-owner.js';
import { RecordSeal, recordSealOf } from './signed-record.js';
import { DistrustLog } from './distrust-log.js';
import type { Reloader } from '../reload/reloader.js';
import {
  COMMAND_CHANNEL,
  COMMAND_TTL_MS,
  HEARTBEAT_MS,
  clusterKey,
  replyChannel,
  type ClusterKeyKind,
  type ClusterRequest,
  type ReplicaReply,
} from './cluster-commands.js';
import type { HostRuntime } from '../runtime.js';
import type { Identity } from '../vocabulary/identity.js';
import { hostStatus } from '../host-status.js';

type RedisClient = ReturnType<typeof createClient>;

/** A MULTI being built: its commands are queued on it in place. */
type RedisBatch = ReturnType<RedisClient['multi']>;

/**
 * A replica heard from within this long is taken for running: one that
 * cannot be reached then is behind a wrong `advertise` address (or a
 * network fault), not stopped. A heartbeat may be late on a loaded machine.
 */
const ALIVE_WITHIN_MS = HEARTBEAT_MS + 1_000;
/** A replica not heard from for this long is gone: its sessions answer 404. */
const REPLICA_TTL_MS = 3 * HEARTBEAT_MS;
/** A session entry outlives its replica's silence by this much, then Redis drops it. */
const SESSION_TTL_MS = 60_000;
/** How long a starting replica waits for Redis before it serves without it. */
const JOIN_WAIT_MS = 5_000;
/** Headers that describe one hop's connection, not the message: never relayed. */
const HOP_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade'];
/** What `command` resolves with when Redis did not answer in time. */
const LATE = Symbol('late');

/** A legacy session this replica holds, as Redis counts it against its bearer token. */
interface HeldSession {
  token: string | undefined;
  /** Its sealed member of its token's sorted set, as last written: replaced at each heartbeat. */
  member?: string;
}

/**
 * This replica's membership of a cluster (DESIGN.md, "Scale"): its entry
 * and its legacy sessions' entries in Redis, kept alive by a heartbeat, the
 * lookups that find another replica's session or call, and the forwarding
 * of a request to that replica, signed with the cluster's key.
 *
 * Redis is reached through node-redis, imported only here and only when a
 * cluster is configured. Commands fail at once while Redis is unreachable
 * (no offline queue): the replica goes on serving what it holds alone, and
 * the heartbeat writes every entry again when Redis is back.
 */
export class Cluster implements ClusterLink {
  readonly replica = randomUUID();
  readonly stateSigning: StateSigning;
  private readonly auth: PeerAuth;
  private readonly seal: RecordSeal;
  private readonly distrust: DistrustLog;
  /** This replica's legacy sessions, each with the bearer token that opened it (when the host checks tokens). */
  private readonly sessions = new Map<string, HeldSession>();
  /** The last record read and found sound under each key looked up, until it expires (lookup). */
  private readonly lastTrusted = new Map<string, { value: string; expiresAt: number }>();
  /** The cluster commands answered, each until it expires: a command replayed on the channel is answered once. */
  private readonly answered = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | undefined;
  /** The connection that listens for `mcp-host reload --cluster`. */
  private subscriber: RedisClient | undefined;
  /** Where the other replicas reach this one, once it serves. */
  private url: string | undefined;
  /** Why Redis was last out of reach: what /readyz says while the client is not connected. */
  private lastFailure = 'not connected to Redis yet';
  /** Whether the current outage was logged already: once per outage, however many retries fail. */
  private outageLogged = false;
  /** Why Redis counts as slow now (a command outlived cluster.redisTimeoutMs); undefined once one answers in time. */
  private slow: string | undefined;

  private constructor(
    private readonly options: ClusterOptions,
    private readonly redis: RedisClient,
    private readonly logger: Logger,
  ) {
    this.stateSigning = { key: deriveKey(options.secret, options.name, 'requestState'), replica: this.replica };
    this.auth = new PeerAuth(deriveKey(options.secret, options.name, 'peer'), this.replica);
    this.seal = recordSealOf(options.secret, options.name);
    this.distrust = new DistrustLog(logger);
    redis.on('ready', () => {
      this.logger.info(`cluster "${options.name}": Redis reachable, registering`);
      this.outageLogged = false;
      void this.beat();
    });
    redis.on('error', (error: unknown) => {
      this.lastFailure = `Redis unreachable: ${describeThrown(error)}`;
      if (this.outageLogged) return;
      this.outageLogged = true;
      this.logger.warn(
        `cluster "${options.name}": ${this.lastFailure}: serving this replica's own sessions and calls only until it is back`,
      );
    });
  }

  /** Join the cluster: connect to Redis in the background (a replica serves while Redis is down). */
  static async join(options: ClusterOptions, logger: Logger): Promise<Cluster> {
    const { createClient } = await import('redis');
    const redis = createClient({
      url: options.redisUrl,
      disableOfflineQueue: true,
      socket: { connectTimeout: 5_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) },
    });
    const cluster = new Cluster(options, redis, logger);
    const ready = new Promise<void>((resolve) => redis.once('ready', resolve));
    redis.connect().catch((error: unknown) => logger.warn(`cluster "${options.name}": ${describeThrown(error)}`));
    // A replica that serves before it reaches Redis answers 503 to its peers' sessions: it waits a little
    // for Redis, and past that serves alone (degraded) until Redis comes.
    if (!(await settlesWithin(ready, JOIN_WAIT_MS))) {
      logger.warn(
        `cluster "${options.name}": Redis not reached within ${JOIN_WAIT_MS} ms; serving degraded until it is`,
      );
    }
    return cluster;
  }

  /** This replica serves at `url`: tell the cluster, and keep telling it while the replica lives. */
  announce(url: string): void {
    this.url = this.options.advertise ?? url;
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    void this.beat();
  }

  /** Why the cluster's shared state is out of reach now; undefined when it is not. */
  get degraded(): string | undefined {
    return this.redis.isReady ? this.slow : this.lastFailure;
  }

  /** Resolves once Redis has it (or could not be reached): a client told its session id finds it on any replica. */
  async registerSession(id: string, token: string | undefined): Promise<void> {
    const session: HeldSession = { token };
    this.sessions.set(id, session);
    await this.command(() => this.registering(this.redis.multi(), id, session).exec());
  }

  forgetSession(id: string): void {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    const batch = this.redis.multi().del(this.key('session', id));
    if (session?.token !== undefined && session.member !== undefined) {
      batch.zRem(this.key('token', session.token), session.member);
    }
    void this.command(() => batch.exec());
  }

  /**
   * How many sessions `token` holds open across the cluster
   * (`http.maxSessionsPerToken` is cluster-wide): each session is a sealed
   * member of its token's sorted set, naming the session and when it lapses
   * unless its replica's heartbeat renews it, so a dead replica's sessions
   * stop counting within seconds, and members that fail their check (made
   * without the cluster's key, or old ones written again) are not counted.
   * Undefined while Redis is out of reach.
   */
  async sessionsHeldBy(token: string): Promise<number | undefined> {
    const key = this.key('token', token);
    const now = Date.now();
    const replies = await this.command(() =>
      this.redis.multi().zRemRangeByScore(key, '-inf', now).zRange(key, 0, -1).exec(),
    );
    if (replies === undefined) return undefined;
    const sessions = new Set<string>();
    for (const member of replies[1] as unknown as string[]) {
      const session = this.opened('token', key, member);
      if (session !== UNTRUSTED && session !== undefined) sessions.add(session.value);
    }
    return sessions.size;
  }

  /**
   * Where a session this replica does not hold lives: another replica,
   * 'gone' when its replica stopped, UNTRUSTED when a record on the way
   * failed its check (so it is not followed), undefined when no replica
   * holds it (or Redis did not say: then `degraded` says why).
   */
  async ownerOfSession(id: string): Promise<Peer | 'gone' | typeof UNTRUSTED | undefined> {
    const owner = await this.lookup('session', id);
    if (owner === UNTRUSTED) return UNTRUSTED;
    if (owner === undefined || owner.value === this.replica) return undefined;
    return (await this.peer(owner.value)) ?? 'gone';
  }

  /** A replica whose entry has not lapsed: its MCP URL, and when it was last heard from; UNTRUSTED when its entry fails its check. */
  async peer(replica: string): Promise<Peer | typeof UNTRUSTED | undefined> {
    const entry = await this.lookup('replica', replica);
    if (entry === undefined || entry === UNTRUSTED) return entry;
    // When it was heard from is what its sealed expiry says, not what Redis says of the key's TTL.
    return {
      replica,
      url: entry.value,
      heardMsAgo: Math.max(0, REPLICA_TTL_MS - (entry.expiresAt - Date.now())),
    };
  }

  /**
   * Whether a request was forwarded by a replica, and for which client: its
   * stamp's MAC, target and time are checked here, before its body is read;
   * the body and the stamp's single use then by `consume`.
   */
  admit(stamp: string, request: StampedRequest): PeerStamp | { refused: string } {
    const checked = this.auth.check(stamp, request);
    if ('refused' in checked) this.refusedStamp(checked.refused);
    return checked;
  }

  /**
   * The rest of a forwarded request's check, once its body is read: the
   * body is the one stamped, the stamp is used for the first time (here,
   * and cluster-wide in Redis while Redis answers), and the request is one
   * a replica forwards: a legacy session's (never one that opens a
   * session) or the retry of a 2026-07-28 call this replica holds.
   * Undefined when it is admitted, else why not.
   */
  async consume(stamp: PeerStamp, read: ReadBody, legacy: boolean): Promise<string | undefined> {
    const refused =
      this.auth.consume(stamp, read.text) ??
      (await this.usedInCluster(stamp)) ??
      forwardsOnly(read, legacy, this.replica);
    if (refused !== undefined) this.refusedStamp(refused);
    else {
      const client = stamp.clientId === undefined ? 'its client (no bearer auth)' : stamp.clientId;
      this.logger.debug(`serving a ${read.request.method} forwarded by replica ${stamp.from} for ${client}`);
    }
    return refused;
  }

  /**
   * Send `request` to `peer` and relay its answer, streamed (an SSE answer
   * or a GET stream flows through as it comes); when that replica cannot
   * be reached, why. A connection that cannot be made fails within Node's
   * fetch connect timeout (10 s), never later.
   */
  async forward(
    read: ReadBody,
    peer: Peer,
    clientId: string | undefined,
    identity?: Identity,
  ): Promise<Response | Unforwarded> {
    const { url } = peer;
    const request = read.withBody();
    const headers = new Headers(request.headers);
    for (const name of HOP_HEADERS) headers.delete(name);
    const { pathname, search } = new URL(url);
    const stamped = {
      method: request.method,
      path: pathname + search,
      sessionId: headers.get('mcp-session-id') ?? undefined,
    };
    headers.set(
      PEER_HEADER,
      this.auth.stamp(stamped, request.method === 'POST' ? read.text : '', peer.replica, clientId, identity),
    );
    let answer: Response;
    try {
      answer = await fetch(url, {
        method: request.method,
        headers,
        ...(request.method === 'POST' && { body: await request.arrayBuffer() }),
        signal: request.signal,
      });
    } catch (error) {
      // fetch says only "fetch failed"; what failed (ECONNREFUSED, a connect timeout) is its cause.
      const cause = describeThrown(error instanceof Error && error.cause instanceof Error ? error.cause : error);
      const running = peer.heardMsAgo <= ALIVE_WITHIN_MS;
      const heard = `${(peer.heardMsAgo / 1000).toFixed(1)} s ago`;
      const unreachable = running
        ? `the mcp-host replica at ${url} cannot be reached from this replica (${cause}), though it was heard from ${heard}. ` +
          `Fix: retry; if it persists, that replica's cluster.advertise (${url}) is not an address the other replicas can reach: ` +
          'set it to one they can (and check the network between them)'
        : `the mcp-host replica at ${url} cannot be reached (${cause}) and was last heard from ${heard}: it stopped`;
      this.logger[running ? 'warn' : 'info'](`could not forward a ${request.method}: ${unreachable}`);
      return { unreachable, running };
    }
    this.logger.debug(`forwarded a ${request.method} to replica ${url}: ${answer.status}`);
    const relayed = new Headers(answer.headers);
    for (const name of HOP_HEADERS) relayed.delete(name);
    return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: relayed });
  }

  /**
   * Answer `mcp-host reload --cluster` and `status --cluster`: each request
   * on the cluster's command channel is served by this replica (a reload,
   * or its status), and the answer published on the request's reply
   * channel. Subscribing takes a connection of its own.
   */
  answerCommands(runtime: HostRuntime, reloader: Reloader, configFile: string): void {
    // Its commands wait in its queue while it is not connected: the subscription is made once it is
    // (and renewed by the client on every reconnection), and a replica serves meanwhile.
    const subscriber = this.redis.duplicate({ disableOfflineQueue: false });
    subscriber.on('error', () => undefined); // the main connection reports outages
    this.subscriber = subscriber;
    subscriber.connect().catch(() => undefined);
    const answer = async ({ id, command }: ClusterRequest): Promise<void> => {
      const reply: ReplicaReply = { replica: this.replica, url: this.url ?? '', pid: process.pid, configFile };
      if (command === 'reload') reply.outcome = await reloader.reload('mcp-host reload --cluster');
      else reply.status = hostStatus(runtime);
      const channel = this.key('channel', replyChannel(id));
      const sealed = this.seal.seal(channel, JSON.stringify(reply), Date.now() + COMMAND_TTL_MS);
      await this.command(() => this.redis.publish(channel, sealed));
    };
    const channel = this.key('channel', COMMAND_CHANNEL);
    subscriber
      .subscribe(channel, (message) => {
        const request = this.commandOf(channel, message);
        if (request) void answer(request);
      })
      // Queued until connected, it fails only when the replica leaves before it ever subscribed: nothing to report.
      .catch(() => undefined);
  }

  /** Leave the cluster: this replica's entry goes at once, so its sessions answer 404 without waiting for expiry. */
  async leave(): Promise<void> {
    clearInterval(this.heartbeat);
    const batch = this.redis.multi().del(this.key('replica', this.replica));
    for (const [id, { token, member }] of this.sessions) {
      batch.del(this.key('session', id));
      if (token !== undefined && member !== undefined) batch.zRem(this.key('token', token), member);
    }
    await this.command(() => batch.exec());
    // Cut, not closed: closing waits for the answers to commands still pending, which a Redis that is
    // paused or gone never sends. A stopping replica waits on Redis cluster.redisTimeoutMs at most.
    for (const client of [this.subscriber, this.redis]) if (client?.isOpen) client.destroy();
  }

  private async beat(): Promise<void> {
    const now = Date.now();
    for (const [key, { expiresAt }] of this.lastTrusted) if (expiresAt <= now) this.lastTrusted.delete(key);
    const { url } = this;
    if (!this.redis.isReady || url === undefined) return;
    const key = this.key('replica', this.replica);
    const batch = this.redis
      .multi()
      .set(key, this.seal.seal(key, url, Date.now() + REPLICA_TTL_MS), { PX: REPLICA_TTL_MS });
    for (const [id, session] of this.sessions) this.registering(batch, id, session);
    await this.command(() => batch.exec());
  }

  /** Add to `batch` the commands that (re)register a session, sealed: its owner, and its place in its token's count. */
  private registering(batch: RedisBatch, id: string, session: HeldSession): RedisBatch {
    const now = Date.now();
    const key = this.key('session', id);
    batch.set(key, this.seal.seal(key, this.replica, now + SESSION_TTL_MS), { PX: SESSION_TTL_MS });
    if (session.token !== undefined) {
      const tokenKey = this.key('token', session.token);
      const lapsesAt = now + REPLICA_TTL_MS;
      const member = this.seal.seal(tokenKey, id, lapsesAt);
      batch.zAdd(tokenKey, { score: lapsesAt, value: member });
      if (session.member !== undefined) batch.zRem(tokenKey, session.member);
      session.member = member;
      batch.pExpire(tokenKey, SESSION_TTL_MS);
    }
    return batch;
  }

  /**
   * The record under `key` (a session's owner, a replica's address), read
   * from Redis and opened. One that fails its check is not followed: the
   * last sealed record read under that key stands in for it until that one
   * expires, so rewriting Redis costs a client nothing while this replica
   * has seen the true record lately; past that, UNTRUSTED. A key that is
   * gone from Redis (a session ended, a replica left) forgets its record.
   */
  private async lookup(
    kind: 'session' | 'replica',
    id: string,
  ): Promise<{ value: string; expiresAt: number } | typeof UNTRUSTED | undefined> {
    const key = this.key(kind, id);
    const record = await this.command(() => this.redis.get(key));
    if (record === null) this.lastTrusted.delete(key);
    const opened = this.opened(kind, key, record);
    if (opened !== UNTRUSTED) {
      if (opened !== undefined) this.lastTrusted.set(key, opened);
      return opened;
    }
    const last = this.lastTrusted.get(key);
    return last !== undefined && last.expiresAt > Date.now() ? last : UNTRUSTED;
  }

  /**
   * A record read from Redis under `key`, opened: undefined when there is
   * none, UNTRUSTED (and logged) when it fails its check.
   */
  private opened(
    kind: ClusterKeyKind,
    key: string,
    record: unknown,
  ): { value: string; expiresAt: number } | typeof UNTRUSTED | undefined {
    if (typeof record !== 'string') return undefined;
    const opened = this.seal.open(key, record);
    if (!('refused' in opened)) return opened;
    // Each kind of record is logged on its own: one does not hide another.
    this.distrust.refused(
      kind,
      `cluster "${this.options.name}": ignored the Redis record ${key}: ${opened.refused}. Something other than a replica of this cluster wrote it; it is not followed. Fix: find what else writes to this Redis, and give Redis credentials only the replicas hold (docs/replicas.md)`,
    );
    return UNTRUSTED;
  }

  /** A cluster command sealed for `channel`, not answered before; undefined (and logged) for anything else. */
  private commandOf(channel: string, message: string): ClusterRequest | undefined {
    const opened = this.opened('channel', channel, message);
    if (opened === undefined || opened === UNTRUSTED) return undefined;
    const request = parsedRequest(opened.value);
    const now = Date.now();
    for (const [id, expiresAt] of this.answered) if (expiresAt <= now) this.answered.delete(id);
    if (request === undefined || this.answered.has(request.id)) return undefined;
    this.answered.set(request.id, opened.expiresAt);
    return request;
  }

  /**
   * Whether another replica saw the stamp first (a replay cache in Redis,
   * SET NX with the stamp's window as expiry). Where Redis does not answer
   * in time, this replica's own cache has decided: a stamp names the one
   * replica it is good for.
   */
  private async usedInCluster(stamp: PeerStamp): Promise<string | undefined> {
    const first = await this.command(() =>
      this.redis.set(this.key('stamp', stamp.nonce), this.replica, { NX: true, PX: 2 * STAMP_WINDOW_MS }),
    );
    return first === null ? 'it was used already (a replay)' : undefined;
  }

  private refusedStamp(why: string): void {
    this.distrust.refused('stamp', `refused a request forwarded as from another replica: ${why}`);
  }

  /**
   * A Redis command whose failure is logged, not thrown: the caller does
   * without. So does one that Redis does not answer within
   * cluster.redisTimeoutMs (a Redis that is slow, not down): a request
   * waits that long at most, and `degraded` says Redis is slow until a
   * command is answered in time again.
   */
  private async command<T>(run: () => Promise<T>): Promise<T | undefined> {
    if (!this.redis.isReady) return undefined;
    const { name, redisTimeoutMs } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), redisTimeoutMs)));
    try {
      const answer = await Promise.race([run(), late]);
      if (answer !== LATE) {
        if (this.slow !== undefined) this.logger.info(`cluster "${name}": Redis answers in time again`);
        this.slow = undefined;
        return answer;
      }
      if (this.slow === undefined) {
        this.slow = `Redis slow: a command got no answer within ${redisTimeoutMs} ms (cluster.redisTimeoutMs)`;
        this.logger.warn(
          `cluster "${name}": ${this.slow}: serving this replica's own sessions and calls; what needs Redis waits ${redisTimeoutMs} ms at most, then does without`,
        );
      }
      return undefined;
    } catch (error) {
      this.logger.debug(`cluster "${name}": a Redis command failed: ${describeThrown(error)}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A call counter kept in the cluster's Redis, so that a limit holds across
   * replicas. While Redis is unreachable each replica counts in its own
   * memory (the counter's insurance), as it serves its own sessions alone.
   */
  counter(options: CounterOptions): RateLimiterAbstract {
    const keyPrefix = this.key('limit', options.keyPrefix);
    return new RateLimiterRedis({
      ...options,
      keyPrefix,
      storeClient: this.redis,
      useRedisPackage: true,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ ...options, keyPrefix }),
    });
  }

  private key(kind: ClusterKeyKind, id: string): string {
    return clusterKey(this.options.name, kind, id);
  }
}

/**
 * A stamp authorises the one request a replica forwards, nothing else: a
 * legacy session's request (one without a session id would open a session),
 * the retry of a 2026-07-28 call held by `replica`, or the follow-up of a
 * task whose binding `replica` holds.
 */
function forwardsOnly({ request, json }: ReadBody, legacy: boolean, replica: string): string | undefined {
  if (legacy) {
    return request.headers.has('mcp-session-id') ? undefined : 'a forwarded request opens no session';
  }
  return holderOf(json)?.replica === replica
    ? undefined
    : 'a forwarded 2026-07-28 request continues a call or a task this replica holds, and this is not';
}

/** A cluster command as published by the CLI; undefined for anything else on the channel. */
function parsedRequest(message: string): ClusterRequest | undefined {
  try {
    const request = JSON.parse(message) as Partial<ClusterRequest>;
    if (typeof request.id === 'string' && (request.command === 'reload' || request.command === 'status')) {
      return { id: request.id, command: request.command };
    }
  } catch {
    // not JSON: refused below
  }
  return undefined;
}
