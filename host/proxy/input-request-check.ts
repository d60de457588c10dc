import type { ClientCapabilities } from '@modelcontextprotocol/server';

type Params = Record<string, unknown>;

/**
 * Why a 2026-07-28 client cannot be asked a plugin's request, or undefined
 * when it can.
 *
 * That revision carries a server's questions inside an input-required
 * result, and only three kinds of them. Its client declares its
 * capabilities on every request, and the SDK refuses (-32021) an
 * input-required result naming a question the request's declaration does
 * not cover. The host checks first, so the plugin hears "the client cannot"
 * as the answer to its request, as it would from a 2025-era client, and its
 * call goes on.
 *
 * The capability rules are the SDK's: a URL-mode elicitation needs
 * `elicitation.url`, any other `elicitation.form`, which a bare
 * `elicitation: {}` also grants (its pre-mode meaning); sampling with tools
 * needs `sampling.tools`.
 */
export function whyClientCannotAnswer(
  request: { method: string; params?: Params },
  declared: ClientCapabilities | undefined,
): string | undefined {
  const missing = missingCapability(request, declared);
  if (missing === null) {
    return `a 2026-07-28 client can only be asked elicitation/create, sampling/createMessage or roots/list, not ${request.method}`;
  }
  return missing && `the client did not declare the ${missing} capability on its 2026-07-28 request`;
}

/** The capability path the request needs and the client lacks; null for a request no client can be asked. */
function missingCapability(
  request: { method: string; params?: Params },
  declared: ClientCapabilities | undefined,
): string | undefined | null {
  const declaredOf = (capability: 'elicitation' | 'sampling' | 'roots') => declared?.[capability] as Params | undefined;
  switch (request.method) {
    case 'elicitation/create': {
      const elicitation = declaredOf('elicitation');
      if (request.params?.mode === 'url') return elicitation?.url === undefined ? 'elicitation.url' : undefined;
      if (!elicitation) return 'elicitation.form';
      const bare = elicitation.form === undefined && elicitation.url === undefined;
      return bare || elicitation.form !== undefined ? undefined : 'elicitation.form';
    }
    case 'sampling/createMessage': {
      const sampling = declaredOf('sampling');
      if (!sampling) return 'sampling';
      const withTools = request.params?.tools !== undefined || request.params?.toolChoice !== undefined;
      return withTools && sampling.tools === undefined ? 'sampling.tools' : undefined;
    }
    case 'roots/list':
      return declaredOf('roots') ? undefined : 'roots';
    default:
      return null;
  }
}
