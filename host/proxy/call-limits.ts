import { createRequire } from 'node:module';
import type Picomatch from 'picomatch';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { ResolvedConfig } from '../config/types.js';
import { accessViewOf } from '../catalogue/access-rules.js';
import type { Generation } from '../catalogue/generation.js';
import { callTool } from '../catalogue/routing.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import { RpcError } from '../rpc-error.js';
import { makeCounter } from '../sinks/call-counters.js';
import { recordLimitHit } from '../sinks/telemetry.js';
import { ANONYMOUS_IDENTITY, identityKey, type Identity } from '../vocabulary/identity.js';

const require = createRequire(import.meta.url);

/** The JSON-RPC code of a call refused by a limit: an implementation-defined server error. */
export const CALL_LIMITED = -32029;

/** A call refused by `limits.callsPerMinute`: its data says which limit, for whom, and when to retry. */
export class CallLimited extends RpcError {
  constructor(
    readonly limit: string,
    identity: Identity,
    callsPerMinute: number,
    retryAfterSeconds: number,
  ) {
    super(
      CALL_LIMITED,
      `Rate limit: ${identity.kind} "${identity.name}" has made ${callsPerMinute} calls this minute, the limit ${limit}; retry in ${retryAfterSeconds} s. Fix: wait, or ask the host's operator to raise ${limit}.`,
      { limit, identity: identity.name, callsPerMinute, retryAfterSeconds },
    );
  }
}

interface Limit {
  /** The config key that sets it: `limits.callsPerMinute.default`, `limits.callsPerMinute.perTool["search.*"]`. */
  key: string;
  callsPerMinute: number;
  counter: RateLimiterAbstract;
  applies: (tool: string) => boolean;
}

interface Limits {
  /** In config order: a call counts against the first whose glob matches its tool. */
  perTool: Limit[];
  overall?: Limit;
}

const compiled = new WeakMap<ResolvedConfig, Limits>();

/** A config's limits, their counters made once per config (a reload that changes them starts them anew). */
function limitsOf(config: ResolvedConfig): Limits {
  let limits = compiled.get(config);
  if (limits) return limits;
  const { default: overall, perTool = {} } = config.limits!.callsPerMinute!;
  const picomatch = require('picomatch') as typeof Picomatch;
  const limit = (key: string, callsPerMinute: number, id: string, applies: Limit['applies']): Limit => ({
    key,
    callsPerMinute,
    applies,
    counter: makeCounter({ points: callsPerMinute, duration: 60, keyPrefix: id }),
  });
  limits = {
    perTool: Object.entries(perTool).map(([glob, n]) =>
      limit(
        `limits.callsPerMinute.perTool[${JSON.stringify(glob)}]`,
        n,
        `tool:${glob}`,
        picomatch(glob, { dot: true }),
      ),
    ),
    ...(overall !== undefined && { overall: limit('limits.callsPerMinute.default', overall, 'default', () => true) }),
  };
  compiled.set(config, limits);
  return limits;
}

/**
 * Count a call of `tool` by `identity` against every limit that applies
 * (the first perTool glob that matches, and the default), refusing it with
 * CallLimited once one is spent. A tool the identity may not use is not
 * counted: its call is answered as unknown, whatever the limits say.
 * Only for a config that sets limits (callToolWithinLimits asks).
 */
async function countCall(config: ResolvedConfig, identity: Identity | undefined, tool: string): Promise<void> {
  const who = identity ?? ANONYMOUS_IDENTITY;
  if (!accessViewOf(config, who).allows('tools', tool)) return;
  const { perTool, overall } = limitsOf(config);
  const applying = [perTool.find((limit) => limit.applies(tool)), overall];
  for (const limit of applying) {
    if (!limit) continue;
    try {
      await limit.counter.consume(identityKey(who));
    } catch (refusal) {
      if (refusal instanceof Error) throw refusal;
      recordLimitHit('limits.callsPerMinute');
      const retryAfterSeconds = Math.max(1, Math.ceil((refusal as RateLimiterRes).msBeforeNext / 1000));
      throw new CallLimited(limit.key, who, limit.callsPerMinute, retryAfterSeconds);
    }
  }
}

/** `tools/call` within the limits: counted (countCall), then routed to its mount; without limits, routed at once. */
export function callToolWithinLimits(
  generation: Generation,
  params: Record<string, unknown>,
  hooks: CallHooks,
): Promise<Record<string, unknown>> {
  if (!generation.config.limits?.callsPerMinute) return callTool(generation, params, hooks);
  return countCall(generation.config, hooks.identity, String(params.name)).then(() =>
    callTool(generation, params, hooks),
  );
}
