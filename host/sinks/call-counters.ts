import { createRequire } from 'node:module';
import type { RateLimiterAbstract, RateLimiterMemory } from 'rate-limiter-flexible';

const require = createRequire(import.meta.url);

/** What a call limit needs counted: `points` calls per `duration` seconds, under keys starting `keyPrefix`. */
export interface CounterOptions {
  points: number;
  duration: number;
  keyPrefix: string;
}

/** Makes the counters of `limits` (proxy/call-limits.ts). */
export type CounterFactory = (options: CounterOptions) => RateLimiterAbstract;

/** One host counts in its own memory. The library is loaded by the first config that sets limits. */
const inMemory: CounterFactory = (options) => {
  const { RateLimiterMemory: Memory } = require('rate-limiter-flexible') as {
    RateLimiterMemory: typeof RateLimiterMemory;
  };
  return new Memory(options);
};

let factory: CounterFactory = inMemory;

/**
 * Count somewhere else from now on: a cluster (cluster/cluster.ts) counts
 * in its Redis, so that every replica's calls count against one limit.
 * Installed at start, before the first call is counted.
 */
export function installCounterFactory(next: CounterFactory): void {
  factory = next;
}

export function makeCounter(options: CounterOptions): RateLimiterAbstract {
  return factory(options);
}
