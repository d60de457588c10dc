// The host config: finding and loading it (cosmiconfig, a fresh import on
// every load), and validating every field with the exact message each
// refusal gives.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { findConfigFile, loadConfig } from '../host/config/load.js';
import { validateConfig } from '../host/config/validate.js';
import { formatProblem, problemsOf } from '../host/errors.js';
import { makeWorkspace, PACKAGE_VERSION } from './helpers/packages.js';

const FILE = '/srv/mcp-host.config.js';

/** The messages validating `raw` refuses it with; [] when it is accepted. */
function refusals(raw: unknown, file = FILE): string[] {
  try {
    validateConfig(raw, file);
    return [];
  } catch (error) {
    return problemsOf(error, 'config').map(formatProblem);
  }
}

/** The message loading a config fails with. */
async function loadFailure(options: Parameters<typeof loadConfig>[0]): Promise<string> {
  try {
    await loadConfig(options);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the config loaded');
}

/**
 * The dispatcher-level keys docs/plugin-authors.md lists, pinned here rather than read
 * from host/config/dispatcher-keys.ts, so a key dropped there is caught.
 */
const README_DISPATCHER_KEYS = [
  'tasks',
  'taskStore',
  'sessionStore',
  'eventStore',
  'pageSize',
  'transport',
  'http',
  'auth',
  'log',
  'extensions',
  'cache',
];

t.test('a minimal config gets every default', async (t) => {
  const { protocolVersions, ...rest } = validateConfig(
    { plugins: [{ package: '@acme/mcp-weather', prefix: 'weather' }] },
    FILE,
  );
  // DESIGN.md: "every *published* revision its SDK speaks, never a pre-release identifier".
  t.same(protocolVersions, ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
  t.same(rest, {
    file: FILE,
    dir: '/srv',
    name: 'mcp-host',
    version: PACKAGE_VERSION,
    separator: '.',
    maxNameLength: 128,
    isolation: 'none',
    shortenNames: false,
    pins: 'warn',
    plugins: [{ package: '@acme/mcp-weather', prefix: 'weather' }],
    reload: { watch: true, debounceMs: 200, drainTimeoutMs: 30000 },
    upstreams: {
      startTimeoutMs: 30000,
      reconnectDelayMs: 500,
      maxReconnectDelayMs: 30000,
      pingIntervalMs: 15000,
      heartbeatTimeoutMs: 10000,
      maxPerClientSessions: 16,
    },
    log: { level: 'info' },
  });
});

t.test('every field of a full config is kept', async (t) => {
  const plugins = [
    { package: '@acme/mcp-weather', prefix: 'weather', options: { units: 'metric' }, timeoutMs: 5000 },
    { package: '@acme/mcp-notes', flat: true, isolation: 'worker', memoryLimitMb: 256 },
    { package: './plugins/clock', isolation: 'none' },
    { package: '@modelcontextprotocol/server-memory', prefix: 'memory', bin: 'mcp-server-memory', args: ['-v'] },
    { command: 'uvx', args: ['mcp-server-time'], env: { TZ: 'UTC' }, cwd: './servers', prefix: 'time' },
    { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' }, prefix: 'remote' },
    { command: 'uvx', args: ['mcp-server-git'], prefix: 'git', sessions: 'per-client' },
    { url: 'https://example.com/crm/mcp', prefix: 'crm', sessions: 'shared' },
  ];
  const upstreams = {
    startTimeoutMs: 1000,
    reconnectDelayMs: 100,
    maxReconnectDelayMs: 2000,
    pingIntervalMs: 0,
    heartbeatTimeoutMs: 2000,
    maxPerClientSessions: 4,
  };
  t.same(
    validateConfig(
      {
        name: 'my-host',
        version: '2.0.0',
        instructions: 'Tools for the ops team.',
        protocolVersions: ['2025-06-18', '2025-11-25'],
        separator: '__',
        maxNameLength: 64,
        pageSize: 100,
        isolation: 'worker',
        plugins,
        http: { port: 3000, allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] },
        reload: { watch: false, debounceMs: 0, drainTimeoutMs: 1000 },
        upstreams,
        log: { level: 'debug' },
      },
      FILE,
    ),
    {
      file: FILE,
      dir: '/srv',
      name: 'my-host',
      version: '2.0.0',
      instructions: 'Tools for the ops team.',
      protocolVersions: ['2025-06-18', '2025-11-25'],
      separator: '__',
      maxNameLength: 64,
      pageSize: 100,
      isolation: 'worker',
      shortenNames: false,
      pins: 'warn',
      plugins,
      http: {
        host: '127.0.0.1',
        port: 3000,
        allowedHosts: ['mcp.example.com'],
        allowedOrigins: ['https://app.example.com'],
      },
      reload: { watch: false, debounceMs: 0, drainTimeoutMs: 1000 },
      upstreams,
      log: { level: 'debug' },
    },
  );
});

t.test('http auth, body limit and session idle timeout are kept, and checked', async (t) => {
  const http = {
    port: 3000,
    auth: { tokens: ['s3cret'], tokensEnv: 'MY_TOKENS' },
    maxBodyBytes: 1048576,
    sessionIdleTimeoutMs: 600000,
  };
  t.same(validateConfig({ plugins: [], http }, FILE).http, { host: '127.0.0.1', ...http });
  t.same(refusals({ plugins: [], http: { port: 0, auth: { tokens: ['ok', ''], tokensEnv: 'MY-TOKENS' } } }), [
    'mcp-host.config.js: http.auth.tokens: expected an array of non-empty strings, got an array. Fix: e.g. tokens: [process.env.MY_TOKEN].',
    'mcp-host.config.js: http.auth.tokensEnv: expected an environment variable name (letters, digits and "_", not starting with a digit), got "MY-TOKENS". Fix: e.g. tokensEnv: "MCP_HOST_HTTP_TOKENS".',
  ]);
  t.same(refusals({ plugins: [], http: { port: 0, auth: 'token', maxBodyBytes: 0, sessionIdleTimeoutMs: 1.5 } }), [
    'mcp-host.config.js: http.auth: expected an object, got "token". Fix: e.g. auth: { tokensEnv: "MCP_HOST_HTTP_TOKENS" } or "none".',
    'mcp-host.config.js: http.maxBodyBytes: expected a positive integer, got 0. Fix: e.g. maxBodyBytes: 1048576 (1 MiB).',
    'mcp-host.config.js: http.sessionIdleTimeoutMs: expected a positive integer, got 1.5. Fix: e.g. sessionIdleTimeoutMs: 600000 (10 minutes).',
  ]);
  t.same(refusals({ plugins: [], http: { port: 0, eventStoreBytes: 1048576 } }), []);
  t.same(refusals({ plugins: [], http: { port: 0, eventStoreBytes: -1 } }), [
    'mcp-host.config.js: http.eventStoreBytes: expected a positive integer, got -1. Fix: e.g. eventStoreBytes: 1048576 (1 MiB).',
  ]);
  t.same(refusals({ plugins: [], http: { port: 0, auth: { token: 'x' } } }), [
    'mcp-host.config.js: http.auth.token: unknown key "token". Fix: did you mean "tokens"?',
  ]);
  t.same(refusals({ plugins: [], auth: { tokens: ['x'] } }), [
    'mcp-host.config.js: auth: "auth" (authorization) is set as http.auth, not at the top level. Fix: move it into http.auth.',
  ]);
  t.same(refusals({ plugins: [{ package: 'a', prefix: 'a', auth: {} }] }), [
    'mcp-host.config.js: plugins[0].auth: "auth" (authorization) is a dispatcher-level setting: there is one dispatcher, the host\'s, so plugin entry plugins[0] cannot set it. Fix: remove "auth" from plugin entry plugins[0]; set it as http.auth in the host config.',
  ]);
});

t.test('a plugin entry bounds its results with maxResultBytes, and its lists with maxListPages', async (t) => {
  t.same(refusals({ plugins: [{ package: 'a', prefix: 'a', maxResultBytes: 1024, maxListPages: 5000 }] }), []);
  t.same(refusals({ plugins: [{ command: 'server', prefix: 'a', maxListPages: 0 }] }), [
    'mcp-host.config.js: plugins[0].maxListPages: expected a positive integer, got 0. Fix: e.g. maxListPages: 5000.',
  ]);
  t.same(refusals({ plugins: [{ url: 'http://127.0.0.1:4000/mcp', prefix: 'a', maxResultBytes: '8MB' }] }), [
    'mcp-host.config.js: plugins[0].maxResultBytes: expected a positive integer, got "8MB". Fix: e.g. maxResultBytes: 16777216 (16 MiB).',
  ]);
});

t.test('forwardHeaders names the client headers a mount receives, and what it may not take', async (t) => {
  const url = 'http://127.0.0.1:4000/mcp';
  const accepted = validateConfig(
    {
      plugins: [
        { url, prefix: 'a', forwardHeaders: ['Authorization', 'X-Tenant'] },
        { package: 'b', prefix: 'b', forwardHeaders: { 'X-Api-Key': 'X-B-Key' } },
      ],
    },
    FILE,
  );
  t.same(accepted.plugins[1], { package: 'b', prefix: 'b', forwardHeaders: { 'X-Api-Key': 'X-B-Key' } });
  t.same(
    refusals({
      http: { port: 0, auth: { tokensEnv: 'TOKENS' } },
      plugins: [
        { url, prefix: 'a', forwardHeaders: 'Authorization' },
        { url, prefix: 'b', forwardHeaders: ['X Tenant', 7] },
        { url, prefix: 'c', forwardHeaders: ['Mcp-Session-Id', 'x-tenant', 'X-Tenant'] },
        { url, prefix: 'd', headers: { authorization: 'Bearer held' }, forwardHeaders: { Authorization: 'X-D' } },
        { url, prefix: 'e', forwardHeaders: ['Authorization'] },
        { package: 'f', prefix: 'f', forwardHeaders: { 'X-Key': 'authorization' } },
        { command: 'server', prefix: 'g', forwardHeaders: ['X-Tenant'] },
      ],
    }),
    [
      'mcp-host.config.js: plugins[0].forwardHeaders: expected an array of header names or an object of them, got "Authorization". Fix: list the client\'s headers to pass on, e.g. forwardHeaders: ["X-Tenant"], or rename them, e.g. forwardHeaders: { Authorization: "X-Weather-Authorization" }.',
      'mcp-host.config.js: plugins[1].forwardHeaders: "X Tenant" is not an HTTP header name. Fix: list the client\'s headers to pass on, e.g. forwardHeaders: ["X-Tenant"], or rename them, e.g. forwardHeaders: { Authorization: "X-Weather-Authorization" }.',
      'mcp-host.config.js: plugins[1].forwardHeaders: 7 is not an HTTP header name. Fix: list the client\'s headers to pass on, e.g. forwardHeaders: ["X-Tenant"], or rename them, e.g. forwardHeaders: { Authorization: "X-Weather-Authorization" }.',
      'mcp-host.config.js: plugins[2].forwardHeaders: "Mcp-Session-Id" belongs to mcp-host\'s own connection to the upstream; a client\'s value for it cannot be passed on. Fix: remove "Mcp-Session-Id" from forwardHeaders.',
      'mcp-host.config.js: plugins[2].forwardHeaders: sets "X-Tenant" twice. Fix: forward one client header as "X-Tenant".',
      'mcp-host.config.js: plugins[3].forwardHeaders: "Authorization" is set both by headers (for every request) and by forwardHeaders (from the client). Fix: keep one: headers for a credential the host holds, forwardHeaders for one each client brings.',
      'mcp-host.config.js: plugins[4].forwardHeaders: forwards the client\'s Authorization header, but with http.auth or http.oauth that header carries the client\'s token for mcp-host itself, which the host never passes on. Fix: have clients send the upstream\'s credential in a header of their own, and rename it: forwardHeaders: { "Authorization": "X-Upstream-Authorization" }.',
      'mcp-host.config.js: plugins[5].forwardHeaders: forwards the client\'s Authorization header, but with http.auth or http.oauth that header carries the client\'s token for mcp-host itself, which the host never passes on. Fix: have clients send the upstream\'s credential in a header of their own, and rename it: forwardHeaders: { "X-Key": "X-Upstream-Authorization" }.',
      "mcp-host.config.js: plugins[6].forwardHeaders: a command runs as a stdio child, which gets no per-request headers: a client's headers cannot reach it. Fix: give the server its credentials in env, or run it as an HTTP server and mount it with url and forwardHeaders.",
    ],
  );
});

t.test('a key set to undefined counts as absent', async (t) => {
  t.same(refusals({ plugins: [{ package: 'a', prefix: 'a', timeoutMs: undefined }], pageSize: undefined }), []);
});

t.test('the config itself must be an object', async (t) => {
  const fix =
    'Fix: make it an object (a .js config exports it as its default export), e.g. { plugins: [{ package: "@acme/mcp-weather", prefix: "weather" }] }.';
  t.same(refusals(undefined), [
    `mcp-host.config.js: expected the config to be an object with a "plugins" array, got undefined. ${fix}`,
  ]);
  t.same(refusals([]), [
    `mcp-host.config.js: expected the config to be an object with a "plugins" array, got an array. ${fix}`,
  ]);
});

t.test('top-level fields: every problem is reported, not the first', async (t) => {
  t.same(
    refusals({
      name: 3,
      version: '',
      instructions: false,
      separator: '-',
      maxNameLength: 200,
      pageSize: 0,
      protocolVersions: ['2025-11-26', 3],
      plugin: [],
      timeoutMs: 1000,
      tasks: {},
      http: { port: 70000, hots: 'x' },
      reload: { watch: 'yes', debounceMs: -1, drainTimeoutMs: 1.5 },
      log: { level: 'verbose' },
    }),
    [
      'mcp-host.config.js: name: expected a non-empty string, got 3. Fix: e.g. name: "my-host".',
      'mcp-host.config.js: version: expected a non-empty string, got "". Fix: e.g. version: "1.0.0".',
      'mcp-host.config.js: instructions: expected a string, got false. Fix: e.g. instructions: "Tools for the ops team.".',
      'mcp-host.config.js: separator: expected ".", "_" or "__", got "-". Fix: e.g. separator: "_" (some clients reject ".").',
      'mcp-host.config.js: maxNameLength: expected an integer from 1 to 128, got 200. Fix: e.g. maxNameLength: 64 (for clients stricter than the spec).',
      'mcp-host.config.js: pageSize: expected a positive integer, got 0. Fix: e.g. pageSize: 100.',
      'mcp-host.config.js: protocolVersions[0]: "2025-11-26" is not an MCP revision mcp-host knows. Fix: did you mean "2025-11-25"?',
      'mcp-host.config.js: protocolVersions[1]: 3 is not an MCP revision mcp-host knows. Fix: use one of "2024-10-07", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25" or "2026-07-28".',
      'mcp-host.config.js: plugin: unknown key "plugin". Fix: did you mean "plugins"?',
      'mcp-host.config.js: timeoutMs: unknown key "timeoutMs". Fix: remove it; the keys allowed here are "name", "version", "instructions", "protocolVersions", "separator", "maxNameLength", "pageSize", "isolation", "shortenNames", "pins", "plugins", "http", "reload", "upstreams", "log", "telemetry", "cluster", "discovery", "access", "servers", "audit" and "limits".',
      'mcp-host.config.js: tasks: "tasks" (task support) is a dispatcher-level setting that mcp-host does not offer yet. Fix: remove it; the dispatcher-level settings the host config offers are "pageSize", "http" and "log".',
      'mcp-host.config.js: http.port: expected an integer from 0 to 65535, got 70000. Fix: e.g. port: 3000 (0 picks a free port).',
      'mcp-host.config.js: http.hots: unknown key "hots". Fix: did you mean "host"?',
      'mcp-host.config.js: reload.watch: expected true or false, got "yes". Fix: e.g. watch: true.',
      'mcp-host.config.js: reload.debounceMs: expected an integer of 0 or more, got -1. Fix: e.g. debounceMs: 200.',
      'mcp-host.config.js: reload.drainTimeoutMs: expected an integer of 0 or more, got 1.5. Fix: e.g. drainTimeoutMs: 30000.',
      'mcp-host.config.js: log.level: expected "fatal", "error", "warn", "info", "debug", "trace" or "silent", got "verbose". Fix: e.g. level: "info".',
      'mcp-host.config.js: plugins: expected an array of plugin entries, got undefined. Fix: e.g. plugins: [{ package: "@acme/mcp-weather", prefix: "weather" }].',
    ],
  );
});

t.test('protocolVersions must be a non-empty list', async (t) => {
  const message =
    'mcp-host.config.js: protocolVersions: expected a non-empty array of MCP revisions, got %s. Fix: list the revisions, e.g. ["2025-11-25","2026-07-28"], or leave it out: a host config then means every published revision, a plugin manifest every revision.';
  t.same(refusals({ plugins: [], protocolVersions: [] }), [message.replace('%s', 'an array')]);
  t.same(refusals({ plugins: [], protocolVersions: '2025-11-25' }), [message.replace('%s', '"2025-11-25"')]);
});

t.test('sections must be objects, and http needs a port', async (t) => {
  t.same(refusals({ plugins: [], http: 3000, reload: true, log: 'info' }), [
    'mcp-host.config.js: http: expected an object, got 3000. Fix: e.g. http: { host: "127.0.0.1", port: 3000 }.',
    'mcp-host.config.js: reload: expected an object, got true. Fix: e.g. reload: { watch: true }.',
    'mcp-host.config.js: log: expected an object, got "info". Fix: e.g. log: { level: "info", format: "pretty" }.',
  ]);
  t.same(refusals({ plugins: [], http: { host: '' } }), [
    'mcp-host.config.js: http.host: expected a non-empty string, got "". Fix: e.g. host: "127.0.0.1".',
    'mcp-host.config.js: http.port: expected an integer from 0 to 65535, got undefined. Fix: e.g. port: 3000 (0 picks a free port).',
  ]);
  t.same(refusals({ plugins: [], http: { port: 0, allowedHosts: 'x', allowedOrigins: [1] } }), [
    'mcp-host.config.js: http.allowedHosts: expected an array of strings, got "x". Fix: e.g. allowedHosts: ["mcp.example.com"].',
    'mcp-host.config.js: http.allowedOrigins: expected an array of strings, got an array. Fix: e.g. allowedOrigins: ["https://app.example.com"].',
  ]);
});

t.test('plugins must be an array of entry objects naming exactly one of package, command, url', async (t) => {
  t.same(refusals({ plugins: { package: 'a' } }), [
    'mcp-host.config.js: plugins: expected an array of plugin entries, got an object. Fix: e.g. plugins: [{ package: "@acme/mcp-weather", prefix: "weather" }].',
  ]);
  t.same(refusals({ plugins: ['@acme/mcp-weather', {}, { package: 'a', url: 'http://x', prefix: 'a' }] }), [
    'mcp-host.config.js: plugins[0]: expected a plugin entry object, got "@acme/mcp-weather". Fix: write { package: "@acme/mcp-weather", prefix: "…" } or { package: "@acme/mcp-weather", flat: true }.',
    'mcp-host.config.js: plugins[1]: names no plugin: expected exactly one of "package", "command" or "url". Fix: add package: "<npm package or ./path>", command: "<stdio MCP server>" or url: "<Streamable HTTP MCP server>".',
    'mcp-host.config.js: plugins[2]: names "package" and "url": expected exactly one of "package", "command" or "url". Fix: keep one; write one entry per plugin.',
  ]);
});

t.test('entry fields are typed', async (t) => {
  t.same(
    refusals({
      plugins: [
        { package: '', prefix: 'a', flat: 'no', timeoutMs: 0, options: [], bin: 3, args: 'x', env: { A: 1 } },
        { command: 'uvx', prefix: 'b', cwd: '', args: [1] },
        { url: 'ftp://example.com', prefix: 'c', headers: 'x' },
        { url: 'not a url', prefix: 'd' },
      ],
    }),
    [
      'mcp-host.config.js: plugins[0].package: expected a non-empty string, got "". Fix: e.g. package: "@acme/mcp-weather" or "./plugins/clock".',
      'mcp-host.config.js: plugins[0].flat: expected true or false, got "no". Fix: e.g. flat: true.',
      'mcp-host.config.js: plugins[0].timeoutMs: expected a positive integer, got 0. Fix: e.g. timeoutMs: 60000.',
      'mcp-host.config.js: plugins[0].options: expected an object, got an array. Fix: e.g. options: { units: "metric" }.',
      'mcp-host.config.js: plugins[0].bin: expected a non-empty string, got 3. Fix: e.g. bin: "mcp-server-memory".',
      'mcp-host.config.js: plugins[0].args: expected an array of strings, got "x". Fix: e.g. args: ["--verbose"].',
      'mcp-host.config.js: plugins[0].env: expected an object whose values are strings, got an object. Fix: e.g. env: { API_KEY: "…" }.',
      'mcp-host.config.js: plugins[1].cwd: expected a non-empty string, got "". Fix: e.g. cwd: "./servers".',
      'mcp-host.config.js: plugins[1].args: expected an array of strings, got an array. Fix: e.g. args: ["mcp-server-time"].',
      'mcp-host.config.js: plugins[2].url: expected an http:// or https:// URL, got "ftp://example.com". Fix: e.g. url: "http://127.0.0.1:4000/mcp".',
      'mcp-host.config.js: plugins[2].headers: expected an object whose values are strings, got "x". Fix: e.g. headers: { Authorization: "Bearer …" }.',
      'mcp-host.config.js: plugins[3].url: expected an http:// or https:// URL, got "not a url". Fix: e.g. url: "http://127.0.0.1:4000/mcp".',
    ],
  );
});

t.test('a prefix is letters, digits, "_" and "-", without the separator', async (t) => {
  t.same(
    refusals({
      plugins: [
        { package: 'a', prefix: 'a' },
        { package: 'b', prefix: 'b' },
        { package: 'c', prefix: 'we.ather' },
      ],
    }),
    [
      'mcp-host.config.js: plugins[2].prefix: "we.ather" contains the separator ".". Fix: use only letters, digits, "_" and "-", e.g. "weather".',
    ],
  );
  t.same(
    refusals({
      plugins: [
        { package: '@acme/mcp-weather', prefix: '' },
        { package: '@acme/mcp-notes', prefix: 'my notes!' },
        { package: '@acme/mcp-clock', prefix: 7 },
      ],
    }),
    [
      'mcp-host.config.js: plugins[0].prefix: the prefix is empty. Fix: use letters, digits, "_" and "-", e.g. "weather", or flat: true to mount with names unchanged.',
      'mcp-host.config.js: plugins[1].prefix: "my notes!" contains " " and "!"; a prefix is only letters, digits, "_" and "-". Fix: use e.g. "mynotes".',
      'mcp-host.config.js: plugins[2].prefix: expected a string of letters, digits, "_" and "-", got 7. Fix: e.g. prefix: "clock", or flat: true to mount with names unchanged.',
    ],
  );
});

t.test('with "_" or "__" as separator, a prefix containing it is refused', async (t) => {
  t.same(
    refusals({
      separator: '_',
      plugins: [
        { package: 'a', prefix: 'my_tools' },
        { package: 'b', prefix: 'ok-tools' },
      ],
    }),
    [
      'mcp-host.config.js: plugins[0].prefix: "my_tools" contains the separator "_". Fix: remove "_" from it, e.g. "mytools": composed names are split at the separator.',
    ],
  );
  t.same(
    refusals({
      separator: '__',
      plugins: [
        { package: 'a', prefix: 'my__tools' },
        { package: 'b', prefix: 'my_tools' },
      ],
    }),
    [
      'mcp-host.config.js: plugins[0].prefix: "my__tools" contains the separator "__". Fix: remove "__" from it, e.g. "mytools": composed names are split at the separator.',
    ],
  );
  // With an invalid separator, prefixes are still checked for their characters.
  t.same(refusals({ separator: '/', plugins: [{ package: 'a', prefix: 'a.b' }] }), [
    'mcp-host.config.js: separator: expected ".", "_" or "__", got "/". Fix: e.g. separator: "_" (some clients reject ".").',
    'mcp-host.config.js: plugins[0].prefix: "a.b" contains "."; a prefix is only letters, digits, "_" and "-". Fix: use e.g. "ab".',
  ]);
});

t.test('a prefix used twice, and prefix with flat, are refused', async (t) => {
  t.same(
    refusals({
      plugins: [
        { package: '@acme/mcp-weather', prefix: 'weather' },
        { command: 'uvx', args: ['mcp-server-weather'], prefix: 'weather' },
        { package: '@acme/mcp-notes', prefix: 'notes', flat: true },
        { package: '@acme/mcp-clock', prefix: 'clock', flat: false },
      ],
    }),
    [
      'mcp-host.config.js: plugins[1].prefix: the prefix "weather" is already used by plugins[0] ("@acme/mcp-weather"). Fix: give one of the two another prefix (an entry\'s prefix overrides its package\'s), or mount one with flat: true.',
      'mcp-host.config.js: plugins[2]: has both prefix "notes" and flat: true; a mount is either prefixed or flat. Fix: remove flat: true to mount under the prefix, or remove prefix to mount "@acme/mcp-notes" with names unchanged.',
    ],
  );
});

t.test('unknown entry keys, keys of another kind of entry, and dispatcher-level keys', async (t) => {
  t.same(
    refusals({
      plugins: [
        { package: 'a', prefx: 'a' },
        { package: 'b', prefix: 'b', headers: {}, cwd: '.' },
        { url: 'http://127.0.0.1:4000/mcp', prefix: 'c', options: {} },
        { package: 'd', prefix: 'd', pageSize: 10, tasks: true, http: {} },
        { package: 'e', prefix: 'e', whatever: 1 },
      ],
    }),
    [
      'mcp-host.config.js: plugins[0].prefx: unknown key "prefx". Fix: did you mean "prefix"?',
      'mcp-host.config.js: plugins[1].headers: "headers" applies to url entries only, and this is a package entry. Fix: remove "headers".',
      'mcp-host.config.js: plugins[1].cwd: "cwd" applies to command entries only, and this is a package entry. Fix: remove "cwd".',
      'mcp-host.config.js: plugins[2].options: "options" applies to package entries only, and this is a url entry. Fix: remove "options".',
      'mcp-host.config.js: plugins[3].pageSize: "pageSize" (the page size of lists) is a dispatcher-level setting: there is one dispatcher, the host\'s, so plugin entry plugins[3] cannot set it. Fix: remove "pageSize" from plugin entry plugins[3]; set it at the top level of the host config, where it applies to every plugin.',
      'mcp-host.config.js: plugins[3].tasks: "tasks" (task support) is a dispatcher-level setting: there is one dispatcher, the host\'s, so plugin entry plugins[3] cannot set it. Fix: remove "tasks" from plugin entry plugins[3]; it belongs in the host config, and mcp-host does not offer "tasks" yet.',
      'mcp-host.config.js: plugins[3].http: "http" (HTTP serving) is a dispatcher-level setting: there is one dispatcher, the host\'s, so plugin entry plugins[3] cannot set it. Fix: remove "http" from plugin entry plugins[3]; set it at the top level of the host config, where it applies to every plugin.',
      'mcp-host.config.js: plugins[4].whatever: unknown key "whatever". Fix: remove it; the keys allowed here are "package", "options", "bin", "args", "env", "isolation", "memoryLimitMb", "allow", "sandbox", "flat", "timeoutMs", "maxResultBytes", "maxListPages", "tools", "prompts", "resources", "prefix" and "forwardHeaders".',
    ],
  );
});

t.test('every dispatcher-level key is refused on a plugin entry', async (t) => {
  for (const key of README_DISPATCHER_KEYS) {
    const [message] = refusals({ plugins: [{ package: 'a', prefix: 'a', [key]: 1 }] });
    t.match(message, `mcp-host.config.js: plugins[0].${key}: "${key}" (`, key);
    t.match(message, 'is a dispatcher-level setting', key);
  }
});

t.test('a config kept in package.json is placed under its "mcp-host" key', async (t) => {
  t.same(refusals({ plugins: [{ package: 'a', prefix: 'a.b' }] }, '/srv/package.json'), [
    'package.json: "mcp-host".plugins[0].prefix: "a.b" contains the separator ".". Fix: use only letters, digits, "_" and "-", e.g. "ab".',
  ]);
});

t.test('loadConfig searches from the working directory up to the project root', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig({ name: 'found', plugins: [] });
  mkdirSync(join(ws.dir, 'a', 'b'), { recursive: true });
  const config = await loadConfig({ cwd: join(ws.dir, 'a', 'b') });
  t.equal(config.file, file);
  t.equal(config.dir, ws.dir);
  t.equal(config.name, 'found');
});

t.test('loadConfig finds .mcp-hostrc.json, a "mcp-host" key in package.json, and .cjs configs', async (t) => {
  const rc = makeWorkspace(t);
  rc.writeFile('.mcp-hostrc.json', JSON.stringify({ name: 'from-rc', plugins: [] }));
  t.equal((await loadConfig({ cwd: rc.dir })).name, 'from-rc');

  const pkg = makeWorkspace(t);
  pkg.writeFile('package.json', JSON.stringify({ name: 'x', 'mcp-host': { name: 'from-package-json', plugins: [] } }));
  const config = await loadConfig({ cwd: pkg.dir });
  t.equal(config.name, 'from-package-json');
  t.equal(config.file, join(pkg.dir, 'package.json'));

  const cjs = makeWorkspace(t);
  cjs.writeConfig("module.exports = { name: 'from-cjs', plugins: [] };\n", 'mcp-host.config.cjs');
  t.equal((await loadConfig({ cwd: cjs.dir })).name, 'from-cjs');
});

t.test('loadConfig loads exactly the file --config names, relative to cwd', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeConfig({ name: 'default', plugins: [] });
  ws.writeConfig({ name: 'other', plugins: [] }, 'configs/other.mjs');
  const config = await loadConfig({ cwd: ws.dir, configPath: 'configs/other.mjs' });
  t.equal(config.name, 'other');
  t.equal(config.dir, join(ws.dir, 'configs'));
});

t.test('no config found: the error names where it searched and the fix', async (t) => {
  const ws = makeWorkspace(t);
  t.equal(
    await loadFailure({ cwd: ws.dir }),
    `${ws.dir}: no mcp-host config found: searched ${ws.dir} for mcp-host.config.js (or .mjs, .cjs, .ts, .mts, .cts), .mcp-hostrc (or .json, .yaml, .yml, .js, .cjs, .mjs), .config/mcp-hostrc… and a "mcp-host" key in package.json. Fix: create ${join(ws.dir, 'mcp-host.config.js')} (export default { plugins: [ … ] }), or name a config file with --config PATH.`,
  );
  const sub = join(ws.dir, 'sub');
  mkdirSync(sub);
  t.match(await loadFailure({ cwd: sub }), `no mcp-host config found: searched from ${sub} up to ${ws.dir} for`);
});

t.test('--config naming a missing file, or a package.json without the key', async (t) => {
  const ws = makeWorkspace(t);
  t.equal(
    await loadFailure({ cwd: ws.dir, configPath: 'nope.config.js' }),
    `${join(ws.dir, 'nope.config.js')}: the config file does not exist. Fix: check the path given with --config, as CONFIG (mcp-host start FILE) or in MCP_HOST_CONFIG (a relative path starts from ${ws.dir}).`,
  );
  t.equal(
    await loadFailure({ cwd: ws.dir, configPath: 'package.json' }),
    `${join(ws.dir, 'package.json')}: this package.json has no "mcp-host" key. Fix: add "mcp-host": { "plugins": [ … ] } to it, or name an mcp-host.config.js with --config.`,
  );
});

t.test('a config file that exports nothing is reported, not skipped', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeConfig('export const plugins = [];\n');
  t.equal(
    await loadFailure({ cwd: ws.dir }),
    'mcp-host.config.js: expected the config to be an object with a "plugins" array, got undefined. Fix: make it an object (a .js config exports it as its default export), e.g. { plugins: [{ package: "@acme/mcp-weather", prefix: "weather" }] }.',
  );
});

t.test('a syntax error names the file, the line and the parse error', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig('export default {\n  plugins: [],\n  name: ,\n};\n');
  t.equal(
    await loadFailure({ cwd: ws.dir }),
    `${file}:3: syntax error: Unexpected token ','. Fix: correct line 3, which reads: name: ,`,
  );
});

t.test('so does one in an ES module config of a CommonJS project (npm init writes "type": "commonjs")', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeFile('package.json', JSON.stringify({ name: 'npm-init-project', version: '1.0.0', type: 'commonjs' }));
  const file = ws.writeConfig('export default {\n  plugins: [],\n  name: ,\n};\n');
  t.equal(
    await loadFailure({ cwd: ws.dir }),
    `${file}:3: syntax error: Unexpected token ','. Fix: correct line 3, which reads: name: ,`,
  );
});

t.test(
  'a syntax error the parser finds at the start of a line names the line before it, where the mistake is',
  async (t) => {
    const ws = makeWorkspace(t);
    const missingComma = "export default {\n  plugins: [\n    { package: 'x' }\n    { package: 'y' },\n  ],\n};\n";
    let file = ws.writeConfig(missingComma);
    t.equal(
      await loadFailure({ cwd: ws.dir }),
      `${file}:3: syntax error: Unexpected token '{' at the start of line 4, so the mistake is at the end of line 3: a comma or a closing bracket missing there? Fix: correct line 3, which reads: { package: 'x' }`,
    );
    // A comment line between is passed over; a line that ends where more must follow is not the mistake.
    file = ws.writeConfig("export default {\n  plugins: [] // none yet\n  // and the name:\n  name: 'x',\n};\n");
    t.match(
      await loadFailure({ cwd: ws.dir }),
      `${file}:2: syntax error: Unexpected identifier 'name' at the start of line 4`,
    );
    file = ws.writeConfig("export default {\n  plugins: [\n    { package: 'x',\n  ],\n};\n");
    t.equal(
      await loadFailure({ cwd: ws.dir }),
      `${file}:4: syntax error: Unexpected token ']'. Fix: correct line 4, which reads: ],`,
    );
    // The same in an ES module config of a CommonJS project, whose line comes from another check.
    ws.writeFile('package.json', JSON.stringify({ name: 'npm-init-project', version: '1.0.0', type: 'commonjs' }));
    file = ws.writeConfig(missingComma);
    t.match(await loadFailure({ cwd: ws.dir }), `${file}:3: syntax error: Unexpected token '{' at the start of line 4`);
  },
);

t.test('a config that throws while loading names the file and the error', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig("throw new Error('no secrets file');\n");
  t.equal(
    await loadFailure({ cwd: ws.dir }),
    `${file}: the config cannot be loaded: no secrets file. Fix: correct the config file.`,
  );
});

t.test('a .js config edited on disk is loaded with its new content in the same process', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeConfig({ name: 'first', plugins: [] });
  t.equal((await loadConfig({ cwd: ws.dir })).name, 'first');
  ws.writeConfig({ name: 'second', plugins: [] });
  t.equal((await loadConfig({ cwd: ws.dir })).name, 'second');

  // A file the config imports is fresh too, with the config.
  ws.writeFile('plugin-list.js', "export const plugins = [{ package: 'a', prefix: 'one' }];\n");
  ws.writeConfig("import { plugins } from './plugin-list.js';\nexport default { plugins };\n");
  t.same((await loadConfig({ cwd: ws.dir })).plugins, [{ package: 'a', prefix: 'one' }]);
  ws.writeFile('plugin-list.js', "export const plugins = [{ package: 'a', prefix: 'two' }];\n");
  t.same((await loadConfig({ cwd: ws.dir })).plugins, [{ package: 'a', prefix: 'two' }]);
});

t.test('a config that imports nothing is run again only when its text changes', async (t) => {
  // Node never unloads a module: running an unchanged config anew at each reload kept a copy of it each time.
  const ws = makeWorkspace(t);
  const runs = () => (globalThis as { configRuns?: number }).configRuns ?? 0;
  const write = (name: string) =>
    ws.writeConfig(
      `globalThis.configRuns = (globalThis.configRuns ?? 0) + 1;\nexport default { name: '${name}', plugins: [] };\n`,
    );
  write('first');
  const before = runs();
  t.equal((await loadConfig({ cwd: ws.dir })).name, 'first');
  t.equal((await loadConfig({ cwd: ws.dir })).name, 'first');
  t.equal(runs(), before + 1, 'the unchanged config ran once');
  write('second');
  t.equal((await loadConfig({ cwd: ws.dir })).name, 'second');
  t.equal(runs(), before + 2, 'the edited config ran again');
});

t.test('a .cjs config and the files it requires are fresh on every load', async (t) => {
  const ws = makeWorkspace(t);
  const write = (name: string) => writeFileSync(join(ws.dir, 'name.cjs'), `module.exports = '${name}';\n`);
  write('first');
  ws.writeConfig("module.exports = { name: require('./name.cjs'), plugins: [] };\n", 'mcp-host.config.cjs');
  t.equal((await loadConfig({ cwd: ws.dir })).name, 'first');
  write('second');
  t.equal((await loadConfig({ cwd: ws.dir })).name, 'second');
});

t.test('findConfigFile names the file loadConfig would load, without running it', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig('export default {\n  plugins: [\n');
  t.equal(await findConfigFile({ cwd: ws.dir }), file, 'a config that no longer parses is still found');
  t.equal(await findConfigFile({ cwd: ws.dir, configPath: 'other.js' }), join(ws.dir, 'other.js'));

  const pkg = makeWorkspace(t);
  pkg.writeFile('package.json', JSON.stringify({ name: 'x', 'mcp-host': { plugins: [] } }));
  t.equal(await findConfigFile({ cwd: pkg.dir }), join(pkg.dir, 'package.json'));
});

t.test('the telemetry section: each key checked, named, with an example', async (t) => {
  t.same(
    refusals({
      plugins: [],
      telemetry: { enabled: 'yes', endpoint: 'collector:4318', serviceName: '', recordArguments: 1, sample: 0.1 },
    }),
    [
      'mcp-host.config.js: telemetry.enabled: expected true or false, got "yes". Fix: e.g. enabled: true.',
      'mcp-host.config.js: telemetry.endpoint: expected an http:// or https:// URL, got "collector:4318". Fix: e.g. endpoint: "http://localhost:4318".',
      'mcp-host.config.js: telemetry.serviceName: expected a non-empty string, got "". Fix: e.g. serviceName: "mcp-host".',
      'mcp-host.config.js: telemetry.recordArguments: expected true or false, got 1. Fix: e.g. recordArguments: false (true puts tool arguments and results on spans).',
      'mcp-host.config.js: telemetry.sample: unknown key "sample". Fix: remove it; the keys allowed here are "enabled", "endpoint", "serviceName" and "recordArguments".',
    ],
  );
  t.same(validateConfig({ plugins: [], telemetry: { enabled: true } }, FILE).telemetry, { enabled: true });
  t.equal(validateConfig({ plugins: [] }, FILE).telemetry, undefined, 'no section, no telemetry key');
});
