import type { ServerContext } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { identityOf } from '../vocabulary/identity.js';

/**
 * A debug line naming who a request is served for, as the HTTP endpoint
 * verified it and handed it down (vocabulary/identity.ts): the kind of
 * identity, its `sub` and `client_id`. Never its token, nor its other
 * claims.
 */
export function logCaller(logger: Logger, ctx: ServerContext, method: string): void {
  if (!logger.isLevelEnabled('debug')) return;
  const { kind, name, claims } = identityOf(ctx);
  const sub = typeof claims.sub === 'string' ? claims.sub : undefined;
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : undefined;
  logger.debug({ identity: { kind, name, sub, client_id: clientId } }, `${method} for ${kind} identity ${name}`);
}
