import { Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';
import { telemetryOn, traceServed } from '../sinks/telemetry.js';

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * The SDK `Server` with every request it answers under a server span, when
 * telemetry is on: the host's handlers and the SDK's own alike
 * (`initialize`, `ping`, `logging/setLevel`, `server/discover`), which the
 * host never sees otherwise. `_wrapHandler` is the SDK's hook for a
 * subclass to wrap each handler as it is registered (the SDK's own in its
 * constructor); wrapping outside the SDK's wrapper, the span covers its
 * checks of the request and the result too. With telemetry off the
 * handlers are left as they are: a request's path gains nothing.
 */
export class TracedServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = super._wrapHandler(method, handler);
    if (!telemetryOn()) return wrapped;
    return (request, ctx) =>
      traceServed(method, request.params, ctx, this, () => wrapped(request, ctx) as Promise<Record<string, unknown>>);
  }
}
