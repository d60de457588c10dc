// oidc-provider ships no typings: the little of its API test/helpers/openid-provider.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export interface ProviderContext {
    oidc: { params: Record<string, string | undefined>; client?: { clientId: string } };
    body: unknown;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (ctx: ProviderContext) => void): this;
    registerGrantType(name: string, handler: (ctx: ProviderContext) => Promise<void>, params: string[]): void;
  }
  export const errors: { InvalidGrant: new (detail: string) => Error };
}
