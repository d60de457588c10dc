// The host `scripts/conformance.sh --auth` judges: the same catalogue as
// mcp-host.config.js, served with identity and governance on, so the suite
// shows they change nothing for a client that is allowed everything. The
// suite cannot send credentials; a proxy in front adds the bearer token.
// The script generates the token per run and passes it, and the audit file's
// path, in the environment (never in a file, never printed).
import base from './mcp-host.config.js';

const token = process.env.MCP_CONFORMANCE_SUITE_TOKEN;
if (!token)
  throw new Error('MCP_CONFORMANCE_SUITE_TOKEN is not set: run this config through scripts/conformance.sh --auth');

/** @type {import('mcp-host').HostConfig} */
export default {
  ...base,
  name: 'mcp-host-conformance-auth',
  // The address comes from --http; `port` is only the key's required value.
  http: { port: 0, auth: { tokens: [`suite:${token}`] } },
  access: [{ who: { token: 'suite' }, tools: ['**'], prompts: ['**'], resources: ['**'] }],
  audit: { file: process.env.MCP_CONFORMANCE_AUDIT_FILE ?? './conformance-audit.log' },
  // On, and far above what the suite calls in a minute: a limit that is counted but never reached.
  limits: { callsPerMinute: { default: 100000 } },
};
