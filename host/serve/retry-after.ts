import { peekJson } from './http-responses.js';

/**
 * A JSON answer whose JSON-RPC error says when to retry (a call a limit
 * refused: `data.retryAfterSeconds`, proxy/call-limits.ts), with the same
 * in a `Retry-After` header, which HTTP clients and proxies know. Only an
 * answer sent whole as JSON can carry it: an answer on an SSE stream (a
 * 2025-era session's usual answer) has sent its headers before the call is
 * refused, and carries the error data alone.
 */
export async function withRetryAfter(answer: Response): Promise<Response> {
  if (!answer.headers.get('content-type')?.startsWith('application/json')) return answer;
  const body = await peekJson(answer);
  const seconds = (Array.isArray(body) ? body : [body])
    .map((message) => (message as { error?: { data?: { retryAfterSeconds?: unknown } } } | undefined)?.error?.data)
    .map((data) => data?.retryAfterSeconds)
    .find((value): value is number => typeof value === 'number');
  if (seconds === undefined) return answer;
  const headers = new Headers(answer.headers);
  headers.set('retry-after', String(seconds));
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
}
