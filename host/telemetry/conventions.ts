/**
 * The OpenTelemetry semantic conventions for MCP, as the host's spans and
 * metrics use them. The names are written out here rather than imported from
 * `@opentelemetry/semantic-conventions/incubating`: the MCP ones are in
 * development status, only there, and that entry is a few MB of constants.
 */
export const ATTR = {
  methodName: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  jsonRpcErrorCode: 'rpc.jsonrpc.error_code',
  responseStatusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
} as const;

/** The host's own attributes: which mount served a request, and the host's events. */
export const HOST_ATTR = {
  mount: 'mcp-host.mount',
  mountKind: 'mcp-host.mount.kind',
  mountState: 'mcp-host.mount.state',
  outage: 'mcp-host.mount.outage',
  /** `client` for a request made while serving a client's, `host` for the host's own (drains, pings). */
  initiator: 'mcp-host.initiator',
  reloadOutcome: 'mcp-host.reload.outcome',
  generation: 'mcp-host.generation',
  list: 'mcp-host.list',
  /** The config key of the containment limit that was hit. */
  limit: 'mcp-host.limit',
  /** How a token was asked of an upstream's authorization server: `client_credentials` or `token_exchange`. */
  tokenGrant: 'mcp-host.token.grant',
  /** Whether the authorization server granted the token: `ok` or `refused`. */
  tokenOutcome: 'mcp-host.token.outcome',
} as const;

type Params = Record<string, unknown>;

/** The request's target, when the conventions give it one: the tool or the prompt. */
function targetOf(method: string, params: Params | undefined): string | undefined {
  if ((method === 'tools/call' || method === 'prompts/get') && typeof params?.name === 'string') return params.name;
  return undefined;
}

/** `{mcp.method.name} {target}`, or the method alone. */
export function spanName(method: string, params: Params | undefined): string {
  const target = targetOf(method, params);
  return target === undefined ? method : `${method} ${target}`;
}

/** The attributes of a request that are fit for metrics too (no ids, no URIs). */
export function requestAttributes(method: string, params: Params | undefined): Record<string, string> {
  const target = targetOf(method, params);
  if (target === undefined) return { [ATTR.methodName]: method };
  return method === 'tools/call'
    ? { [ATTR.methodName]: method, [ATTR.toolName]: target, [ATTR.operationName]: 'execute_tool' }
    : { [ATTR.methodName]: method, [ATTR.promptName]: target };
}
