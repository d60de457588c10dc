/** What a plugin did, in words for the log, the outage and its calls in flight. */
export interface PluginFault {
  /** One sentence: `its code threw outside any request: Error: boom`. */
  cause: string;
  /** The stack that named the plugin, for the log. */
  stack?: string;
}

/** A live instance of a plugin's code: told of its faults. */
export interface FaultOwner {
  /** How messages name the plugin: `plugin "boom" (@acme/boom)`. */
  readonly description: string;
  fault(fault: PluginFault): void;
}

/**
 * One instance's claim on its package's code, from before its import until
 * it is closed. Async contexts hold the claim, not the instance: promises
 * outlive it (Node's module loader keeps those of every module it ever
 * loaded, with the context they were made in), and a released claim lets
 * the instance go.
 */
export class PluginCodeClaim {
  constructor(
    private owner: FaultOwner | undefined,
    readonly description: string,
    /** The tag its code was imported under (fresh-import.ts): tells apart versions of one package. */
    readonly importTag: string,
    private readonly claims: Set<PluginCodeClaim>,
  ) {
    claims.add(this);
  }

  /** The instance, while it is live. */
  get live(): FaultOwner | undefined {
    return this.owner;
  }

  release(): void {
    this.owner = undefined;
    this.claims.delete(this);
  }
}
