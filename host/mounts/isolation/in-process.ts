import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { InProcessSpec } from '../../loader/types.js';
import type { PluginServer } from '../../plugin.js';
import { loadDefinition } from '../../loader/definition.js';
import { HostError, describeThrown } from '../../errors.js';
import type { Logger } from '../../log.js';
import { createInProcessLink, runAsPlugin } from './in-process-link.js';
import { describeMount } from '../mount.js';
import { asPluginServer, createFailed } from '../plugin-server.js';
import { pluginWhere } from '../../config/problem-wording.js';
import type { SendOptions, UpstreamChannel } from '../channel.js';
import type { ExplainedChannel, Outage } from '../supervisor.js';
import { claimPluginCode } from '../fault-attribution.js';
import type { FaultOwner, PluginCodeClaim, PluginFault } from '../plugin-code-claim.js';
import { connectPluginServer, type PluginConnection } from '../plugin-era.js';

/**
 * One instance of an mcp-host plugin in this process, as a channel the
 * supervisor opens like a child's pipes: `start` imports its entry (fresh,
 * tagged with its code's identity so an upgraded plugin runs its new code),
 * calls `create`, and connects the server it returns over an in-process
 * link. Works the same for servers built with SDK v1 and v2.
 *
 * It is also the plugin's `FaultOwner`: from before the import until it is
 * closed, a fault attributed to the plugin's code (fault-attribution.ts)
 * lands here. During `start` it refuses the plugin (the supervisor does not
 * retry a plugin refused at start-up or reload); while serving, it closes
 * the link, so the supervisor withdraws the mount and opens a fresh
 * instance with backoff, exactly as for a child that exited.
 */
export class InProcessChannel implements ExplainedChannel, FaultOwner {
  onmessage?: UpstreamChannel['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly description: string;
  private link?: ReturnType<typeof createInProcessLink>;
  private server?: PluginServer;
  private connection?: PluginConnection;
  /** Known once started: an SDK v1 server, or a v2 one not linked at 2026-07-28 (plugin-era.ts), is not probed. */
  legacyOnly = false;
  private faulted?: PluginFault;
  private closed = false;
  private readonly claim: PluginCodeClaim;

  constructor(
    private readonly spec: InProcessSpec,
    private readonly importTag: string,
    private readonly logger: Logger,
    private readonly startTimeoutMs: number,
  ) {
    this.description = describeMount(spec);
    this.claim = claimPluginCode(this, logger);
  }

  async start(): Promise<void> {
    try {
      this.server = await runAsPlugin(this.claim, () => this.createServer());
    } catch (error) {
      await this.close();
      throw this.faulted ? this.refusal(this.faulted, error) : error;
    }
    if (this.faulted) {
      // It caught the refusal of its process.exit, or a timer it set threw while it was starting.
      await this.close();
      throw this.refusal(this.faulted);
    }
    const link = createInProcessLink(this.description, this.claim);
    link.hostSide.onmessage = (message, related) => this.onmessage?.(message, related);
    link.hostSide.onclose = () => this.onclose?.();
    link.hostSide.onerror = (error) => this.onerror?.(error);
    this.link = link;
    const server = this.server!;
    this.connection = await runAsPlugin(this.claim, () => connectPluginServer(server, link.pluginSide, this.spec));
    this.legacyOnly = !this.connection.modern;
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (!this.link) return Promise.reject(new Error(`${this.description} is not started`));
    return this.link.hostSide.send(message, options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.claim.release();
    await this.link?.hostSide.close();
    const { server, connection } = this;
    if (!server) return;
    try {
      await runAsPlugin(this.claim, () => (connection ?? server).close());
    } catch (error) {
      this.logger.warn(`close() failed: ${describeThrown(error)}`);
    }
  }

  fault(fault: PluginFault): void {
    // A closed instance has released its claim: faults of code it left running are logged as no one's to restart.
    if (this.closed || this.faulted) return;
    this.faulted = fault;
    this.logger.error({ stack: fault.stack }, `${this.description} faulted: ${fault.cause}`);
    // Serving: closing the link fails its calls in flight (naming the cause)
    // and tells the supervisor, which re-creates it. Starting: `start` refuses it.
    if (this.link) void this.close();
  }

  explain(): Outage | undefined {
    return (
      this.faulted && {
        cause: this.faulted.cause,
        fix: 'fix the plugin (see the host log for the stack); mcp-host re-creates it with backoff meanwhile.',
      }
    );
  }

  private async createServer(): Promise<PluginServer> {
    const { spec } = this;
    const definition = await loadDefinition(spec, this.importTag);
    let created: PluginServer;
    try {
      created = await withinStartTimeout(
        Promise.resolve(definition.create({ options: spec.options, logger: this.logger })),
        spec,
        this.startTimeoutMs,
      );
    } catch (error) {
      if (error instanceof HostError) throw error; // the start timeout's own refusal
      throw createFailed(spec, error);
    }
    return asPluginServer(spec, created);
  }

  /** A plugin that faulted while loading or in `create()` is not mounted. */
  private refusal(fault: PluginFault, error?: unknown): HostError {
    return new HostError(
      {
        where: pluginWhere(this.spec.path, this.spec.label),
        what: `faulted while starting: ${fault.cause}`,
        fix: 'a plugin must not end or signal the host process, nor throw or reject outside a request: throw an error from create() or from a handler instead. The host did not mount it.',
      },
      { cause: error },
    );
  }
}

/**
 * A `create()` that never settles would hold start-up (or a reload) forever:
 * it gets `upstreams.startTimeoutMs`, like an upstream's first connection.
 * A server it returns after that is closed, never mounted.
 */
function withinStartTimeout(
  creating: Promise<PluginServer>,
  spec: InProcessSpec,
  timeoutMs: number,
): Promise<PluginServer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      creating
        .then(
          (server) => server?.close?.(),
          () => {},
        )
        .catch(() => {});
      reject(
        new HostError({
          where: pluginWhere(spec.path, spec.label),
          what: `create() did not return within ${timeoutMs} ms (upstreams.startTimeoutMs).`,
          fix: 'find what create() waits for that never comes (a connection, a promise nobody settles), or raise upstreams.startTimeoutMs in the host config if it is merely slow; the host did not mount it.',
        }),
      );
    }, timeoutMs);
  });
  return Promise.race([creating, late]).finally(() => clearTimeout(timer));
}
