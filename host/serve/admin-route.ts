import type { IncomingMessage, ServerResponse } from 'node:http';

/** Where the admin console is served (DESIGN.md, "Admin console and metrics"). */
export const ADMIN_PATH = '/admin';

export function isAdminPath(path: string): boolean {
  return path === ADMIN_PATH || path.startsWith(`${ADMIN_PATH}/`);
}

/**
 * What the HTTP server hands `/admin` to, once the request passed the
 * DNS-rebinding guard: the console (admin-console/), which sits above the
 * serving layers and is passed in by `start` only when `http.admin` is
 * configured. It checks the admin credential itself.
 */
export interface AdminRoute {
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
}
