/**
 * A request an upstream sends outside any client's call has no client to
 * ask: the filesystem server, once initialized, asks the host for the
 * client's roots (`roots/list`) before any client has called it. The host
 * answers with an error saying why, and such a server prints that answer on
 * its stderr ("Failed to request initial roots from client: mcp-host cannot
 * route roots/list …") on every start. The host knows its own words there:
 * the echo is logged at debug, as is the host's own note of the request, so
 * a normal start does not read as failing. The server keeps the settings it
 * was started with.
 */
const UNROUTABLE = 'mcp-host cannot route';

/** The error an upstream is answered when its request cannot reach a client. */
export function unroutableMessage(method: string, label: string, why: string): string {
  return `${UNROUTABLE} ${method} from mount "${label}": ${why}`;
}

/** Whether a line an upstream wrote quotes that answer back. */
export function echoesUnroutable(line: string): boolean {
  return line.includes(`${UNROUTABLE} `);
}
