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
    const response = await post(url, capabilities, token, ++id, method, params);
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

/**
 * A `subscriptions/listen` stream (request id 1) left open: `heard` fills
 * with each message as it arrives (its acknowledgement first); `close`
 * ends it from the client's side.
 */
export async function modernListen(
  url: string,
  capabilities: Params,
  token: string | undefined,
  notifications: Params,
): Promise<{ heard: { method?: string; params?: Params }[]; close: () => void }> {
  const abort = new AbortController();
  const response = await post(url, capabilities, token, 1, 'subscriptions/listen', { notifications }, abort.signal);
  const heard: { method?: string; params?: Params }[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let unread = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      unread += value;
      for (let end; (end = unread.indexOf('\n\n')) >= 0; unread = unread.slice(end + 2)) {
        const data = unread
          .slice(0, end)
          .split('\n')
          .find((line) => line.startsWith('data: '));
        if (data) heard.push(JSON.parse(data.slice(6)) as { method?: string; params?: Params });
      }
    }
  })().catch(() => {}); // aborted by close()
  return { heard, close: () => abort.abort() };
}

/** One request, with the revision's headers and `_meta` envelope. */
function post(
  url: string,
  capabilities: Params,
  token: string | undefined,
  id: number,
  method: string,
  params: Params,
  signal?: AbortSignal,
): Promise<Response> {
  const named = NAMED_BY[method] && params[NAMED_BY[method]];
  return fetch(url, {
    method: 'POST',
    ...(signal && { signal }),
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
      id,
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
}
