// Raw 2026-07-28 requests over HTTP, for what the SDK's Client will not
// send or receive: the tasks extension's results (`resultType: 'task'`,
// which its codec refuses as an unsupported result type) and follow-ups.
// Each request carries the revision's headers (`Mcp-Method`, and
// `Mcp-Name` for the methods that name something) and its `_meta` envelope.

type Params = Record<string, unknown>;

/** The `params` field `Mcp-Name` mirrors, per method (SEP-2243). */
const NAMED_BY: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A JSON-RPC error answer, as thrown by `ask`. */
export class RpcAnswerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A client of one 2026-07-28 endpoint declaring `capabilities` on every
 * request (with `token`, as its bearer); `heard` gets the notifications an
 * SSE answer carries before its response.
 */
export function modernRpc(
  url: string,
  capabilities: Params = {},
  token?: string,
  heard?: (notification: { method: string; params?: Params }) => void,
) {
  let id = 0;
  return async function ask(method: string, params: Params = {}): Promise<Params> {
    const named = NAMED_BY[method] && params[NAMED_BY[method]];
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof named === 'string' ? { 'mcp-name': named } : {}),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': capabilities,
            'io.modelcontextprotocol/clientInfo': { name: 'modern-rpc', version: '1.0.0' },
          },
        },
      }),
    });
    const text = await response.text();
    // An SSE answer's last data line is the response, those before it notifications; a JSON answer is it.
    const lines = response.headers.get('content-type')?.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
      : [text];
    const body = lines.pop()!;
    for (const line of lines) heard?.(JSON.parse(line) as { method: string; params?: Params });
    const message = JSON.parse(body) as { result?: Params; error?: { code: number; message: string; data?: unknown } };
    if (message.error) throw new RpcAnswerError(message.error.code, message.error.message, message.error.data);
    return message.result!;
  };
}
