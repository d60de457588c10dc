import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Identity } from '../vocabulary/identity.js';

/**
 * The identity the endpoint verified for a request (what it put in the
 * SDK's AuthInfo), to carry to the replica that serves it when the request
 * is forwarded; undefined when the endpoint verified none.
 */
export function identityCarried(authInfo: AuthInfo | undefined): Identity | undefined {
  return authInfo?.extra?.identity as Identity | undefined;
}
