import { randomUUID } from 'node:crypto';
import type { createClient } from 'redis';
import type { Logger } from '../log.js';
import { describeThrown } from '../errors.js';
import { settlesWithin } from '../settles-within.js';
import type { ClusterOptions } from './cluster-options.js';
import { PeerAuth, deriveKey } from './peer-auth.js';
import { PEER_HEADER, type ClusterLink, type Peer, type Unforwarded } from '../sinks/cluster.js';
import type { StateSigning } from '../vocabulary/continuation-owner.js';
import type { Reloader } from '../reload/reloader.js';
import {
  COMMAND_CHANNEL,
  clusterKey,
  replyChannel,
  type ClusterKeyKind,
  type ClusterRequest,
  type ReplicaReply,
} from './cluster-commands.js';
import type { HostRuntime } from '../runtime.js';
import { hostStatus } from '../host-status.js';

type RedisClient = ReturnType<typeof createClient>;

/** A MULTI being built: its commands are queued on it in place. */
type RedisBatch = ReturnType<RedisClient['multi']>;

/** How often a replica says it is alive and refreshes its sessions' entries. */
const HEARTBEAT_MS = 2_000;
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
  /** This replica's legacy sessions, each with the bearer token that opened it (when the host checks tokens). */
  private readonly sessions = new Map<string, string | undefined>();
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
    this.auth = new PeerAuth(deriveKey(options.secret, options.name, 'peer'));
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
    this.sessions.set(id, token);
    await this.command(() => this.registering(this.redis.multi(), id, token).exec());
  }

  forgetSession(id: string): void {
    const token = this.sessions.get(id);
    this.sessions.delete(id);
    const batch = this.redis.multi().del(this.key('session', id));
    if (token !== undefined) batch.zRem(this.key('token', token), id);
    void this.command(() => batch.exec());
  }

  /**
   * How many sessions `token` holds open across the cluster
   * (`http.maxSessionsPerToken` is cluster-wide): each session is a member
   * of its token's sorted set, scored with when it lapses unless its
   * replica's heartbeat renews it, so a dead replica's sessions stop
   * counting within seconds. Undefined while Redis is out of reach.
   */
  async sessionsHeldBy(token: string): Promise<number | undefined> {
    const key = this.key('token', token);
    const now = Date.now();
    const replies = await this.command(() => this.redis.multi().zRemRangeByScore(key, '-inf', now).zCard(key).exec());
    return replies === undefined ? undefined : Number(replies[1]);
  }

  /**
   * Where a session this replica does not hold lives: another replica,
   * 'gone' when its replica stopped, undefined when no replica holds it
   * (or Redis did not say: then `degraded` says why).
   */
  async ownerOfSession(id: string): Promise<Peer | 'gone' | undefined> {
    const replica = await this.command(() => this.redis.get(this.key('session', id)));
    if (!replica || replica === this.replica) return undefined;
    return (await this.peer(replica)) ?? 'gone';
  }

  /** A replica whose entry has not lapsed: its MCP URL, and when it was last heard from. */
  async peer(replica: string): Promise<Peer | undefined> {
    const key = this.key('replica', replica);
    const replies = await this.command(() => this.redis.multi().get(key).pTTL(key).exec());
    const url = replies?.[0];
    if (typeof url !== 'string') return undefined;
    return { url, heardMsAgo: Math.max(0, REPLICA_TTL_MS - Number(replies?.[1])) };
  }

  /** Whether a request was forwarded by a replica, and for which client; a forged stamp is refused. */
  admit(stamp: string): { clientId: string | undefined } | { refused: string } {
    return this.auth.check(stamp);
  }

  /**
   * Send `request` to `peer` and relay its answer, streamed (an SSE answer
   * or a GET stream flows through as it comes); when that replica cannot
   * be reached, why. A connection that cannot be made fails within Node's
   * fetch connect timeout (10 s), never later.
   */
  async forward(request: Request, peer: Peer, clientId: string | undefined): Promise<Response | Unforwarded> {
    const { url } = peer;
    const headers = new Headers(request.headers);
    for (const name of HOP_HEADERS) headers.delete(name);
    headers.set(PEER_HEADER, this.auth.stamp(clientId));
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
  async answerCommands(runtime: HostRuntime, reloader: Reloader, configFile: string): Promise<void> {
    const subscriber = this.redis.duplicate();
    subscriber.on('error', () => undefined); // the main connection reports outages
    this.subscriber = subscriber;
    await subscriber.connect().catch(() => undefined);
    const answer = async ({ id, command }: ClusterRequest): Promise<void> => {
      const reply: ReplicaReply = { replica: this.replica, url: this.url ?? '', pid: process.pid, configFile };
      if (command === 'reload') reply.outcome = await reloader.reload('mcp-host reload --cluster');
      else reply.status = hostStatus(runtime);
      await this.command(() => this.redis.publish(this.key('channel', replyChannel(id)), JSON.stringify(reply)));
    };
    await subscriber
      .subscribe(this.key('channel', COMMAND_CHANNEL), (message) => {
        const request = parsedRequest(message);
        if (request) void answer(request);
        else this.logger.warn(`cluster "${this.options.name}": ignored a malformed command on the cluster's channel`);
      })
      .catch((error: unknown) =>
        this.logger.warn(
          `cluster "${this.options.name}": reload --cluster and status --cluster cannot reach this replica: ${describeThrown(error)}`,
        ),
      );
  }

  /** Leave the cluster: this replica's entry goes at once, so its sessions answer 404 without waiting for expiry. */
  async leave(): Promise<void> {
    clearInterval(this.heartbeat);
    const batch = this.redis.multi().del(this.key('replica', this.replica));
    for (const [id, token] of this.sessions) {
      batch.del(this.key('session', id));
      if (token !== undefined) batch.zRem(this.key('token', token), id);
    }
    await this.command(() => batch.exec());
    await this.subscriber?.quit().catch(() => undefined);
    await this.redis.quit().catch(() => undefined);
  }

  private async beat(): Promise<void> {
    const { url } = this;
    if (!this.redis.isReady || url === undefined) return;
    const batch = this.redis.multi().set(this.key('replica', this.replica), url, { PX: REPLICA_TTL_MS });
    for (const [id, token] of this.sessions) this.registering(batch, id, token);
    await this.command(() => batch.exec());
  }

  /** Add to `batch` the commands that (re)register a session: its owner, and its place in its token's count. */
  private registering(batch: RedisBatch, id: string, token: string | undefined): RedisBatch {
    batch.set(this.key('session', id), this.replica, { PX: SESSION_TTL_MS });
    if (token !== undefined) {
      const key = this.key('token', token);
      batch.zAdd(key, { score: Date.now() + REPLICA_TTL_MS, value: id });
      batch.pExpire(key, SESSION_TTL_MS);
    }
    return batch;
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

  private key(kind: ClusterKeyKind, id: string): string {
    return clusterKey(this.options.name, kind, id);
  }
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
