/**
 * The body the SDK's transports answer HTTP-level refusals with, so a
 * client sees one shape whether the host or the SDK refused it.
 */
export function jsonRpcErrorResponse(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

/**
 * A message's body as JSON, read from a copy so that the message itself can
 * still be handed on (to the SDK's handler, or to the client); undefined
 * when the body is not JSON.
 */
export async function peekJson(message: Request | Response): Promise<unknown> {
  return message
    .clone()
    .json()
    .catch(() => undefined);
}
