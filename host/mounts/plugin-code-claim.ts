import type { Logger } from '../log.js';

/** What a plugin did, in words for the log, the outage and its calls in flight. */
export interface PluginFault {
  /** One sentence: `its code threw outside any request: Error: boom`. */
  cause: string;
  /** Where it happened, for the log (never for blame). */
  stack?: string;
}

/** A live instance of a plugin's code: told of its faults. */
export interface FaultOwner {
  /** How messages name the plugin: `plugin "boom" (@acme/boom)`. */
  readonly description: string;
  fault(fault: PluginFault): void;
}

/**
 * One instance's claim on the code it runs, from before its import until it
 * is closed. Async contexts hold the claim, not the instance: promises
 * outlive it (Node's module loader keeps those of every module it ever
 * loaded, with the context they were made in), and a released claim lets
 * the instance go.
 */
export class PluginCodeClaim {
  readonly description: string;
  private owner: FaultOwner | undefined;

  constructor(
    owner: FaultOwner,
    /** The plugin's logger: what its code prints goes there (plugin-output.ts). */
    readonly logger: Logger,
  ) {
    this.owner = owner;
    this.description = owner.description;
  }

  /** The instance, while it is live. */
  get live(): FaultOwner | undefined {
    return this.owner;
  }

  release(): void {
    this.owner = undefined;
  }
}
