/**
 * A JSON-RPC error bound for a client: either answered by an upstream (passed
 * on unchanged: the host is transparent) or raised by the host itself (an
 * upstream timed out or closed, a cursor the host did not issue, an unknown
 * tool), with a message that names the mount or the fix.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** JSON-RPC codes the host itself raises towards clients. */
export const ErrorCode = {
  /** The SDKs' code for a connection that closed with the request unanswered. */
  ConnectionClosed: -32000,
  /** The SDKs' code for a request that timed out. */
  RequestTimeout: -32001,
  /** Resource not found, as SDKs before 2026-07-28 answered it. */
  ResourceNotFound: -32002,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;
