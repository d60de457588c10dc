import type { IncomingMessage } from 'node:http';
import {
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';

/** A request the HTTP server answers itself, before any MCP handling. */
export interface HttpRefusal {
  status: number;
  message: string;
}

export interface RebindingGuardOptions {
  /** The address the server is bound to. */
  host: string;
  /** Extra Host names accepted (config `http.allowedHosts`). */
  allowedHosts?: readonly string[];
  /** Extra origins accepted (config `http.allowedOrigins`): hostnames or full origins. */
  allowedOrigins?: readonly string[];
}

/**
 * DNS-rebinding protection: a web page on evil.example that re-points its
 * own name at 127.0.0.1 reaches the host with `Host: evil.example` (and its
 * own `Origin`), so both headers are checked against the names the operator
 * expects. By default those are the loopback names and the bound address
 * itself; anything else must be listed in the config.
 *
 * The checks are the SDK's (port-agnostic hostname comparison, a missing
 * Origin passes because non-browser clients send none); the refusal names
 * the config key that would let the request in.
 */
export function rebindingGuard(options: RebindingGuardOptions): (req: IncomingMessage) => HttpRefusal | undefined {
  const bound = boundHostname(options.host);
  const hosts = unique([...localhostAllowedHostnames(), ...bound, ...(options.allowedHosts ?? []).map(hostnameOf)]);
  const origins = unique([
    ...localhostAllowedOrigins(),
    ...bound,
    ...(options.allowedOrigins ?? []).map(originHostnameOf),
  ]);
  return (req) => {
    const host = validateHostHeader(req.headers.host, hosts);
    if (!host.ok) {
      return {
        status: 403,
        message: `${host.message}: mcp-host accepts Host ${hosts.join(', ')} (DNS-rebinding protection); to serve another name, add it to http.allowedHosts in the config`,
      };
    }
    const origin = validateOriginHeader(req.headers.origin, origins);
    if (!origin.ok) {
      return {
        status: 403,
        message: `${origin.message}: mcp-host accepts Origin ${origins.join(', ')} (DNS-rebinding protection); to allow a web app, add its origin to http.allowedOrigins in the config`,
      };
    }
    return undefined;
  };
}

/**
 * The bound address as a Host header names it. A wildcard address (every
 * interface) names no host, so it adds nothing: such a host is reached by
 * names the operator must list.
 */
function boundHostname(host: string): string[] {
  if (host === '0.0.0.0' || host === '::' || host === '') return [];
  return [hostnameOf(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host)];
}

/** `mcp.example.com`, `mcp.example.com:8443` or `[::1]` to the hostname the SDK compares. */
function hostnameOf(entry: string): string {
  return URL.canParse(`http://${entry}`) ? new URL(`http://${entry}`).hostname : entry.toLowerCase();
}

/**
 * `https://app.example.com` or `app.example.com` to the hostname the SDK
 * compares; `<scheme>://*` entries (browser extensions) pass as they are.
 */
function originHostnameOf(entry: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\/\*$/.test(entry)) return entry;
  if (entry.includes('://') && URL.canParse(entry)) return new URL(entry).hostname;
  return hostnameOf(entry);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
