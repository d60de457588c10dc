import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminCredential } from './admin-credential.js';

/** Where the admin console is served (DESIGN.md, "Admin console and metrics"). */
export const ADMIN_PATH = '/admin';

export function isAdminPath(path: string): boolean {
  return path === ADMIN_PATH || path.startsWith(`${ADMIN_PATH}/`);
}

/**
 * What the HTTP server hands `/admin` to, once the request passed the
 * DNS-rebinding guard: the console (admin-console/), which sits above the
 * serving layers and is passed in by `start` only when `http.admin` is
 * configured. It admits by `credential` (the same as `/metrics`), which it
 * asks at every request.
 */
export interface AdminRoute {
  handle(req: IncomingMessage, res: ServerResponse, path: string, credential: AdminCredential): Promise<void>;
}
