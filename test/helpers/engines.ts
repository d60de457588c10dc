/**
 * Real engines for the cluster tests, started by the test on free
 * 127.0.0.1 ports and stopped when it ends: Redis (Debian's redis-server,
 * no persistence) and HAProxy (Debian's haproxy, round robin, no affinity).
 * A machine without them fails the test and says how to install them: CI
 * (.ci/run) installs them; a cluster test never skips silently.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { eventually, type Teardown } from './host.js';
import type { Workspace } from './packages.js';

/** The executable `name` on PATH (or in the sbin directories, where Debian puts haproxy). */
export function requireEngine(name: string, debianPackage: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  throw new Error(
    `the cluster tests need ${name}, which is not installed: run \`apt-get install -y ${debianPackage}\` (.ci/run installs it when missing)`,
  );
}

/**
 * A port free on 127.0.0.1 now, for a process that must be told its port up
 * front. Picked below the kernel's range for outgoing connections
 * (ip_local_port_range): a port the kernel handed out for `listen(0)` is one
 * it may hand any of the suite's thousands of outgoing connections next, in
 * the moment before the process that was told it binds it. Below the range,
 * only another test's pick can take it, one chance in thousands.
 */
export async function freePort(): Promise<number> {
  const [lowestEphemeral] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
  const below = Math.min(Number(lowestEphemeral) || 32768, 32768);
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * (below - 10_000));
    if (await canListen(port)) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const execFileAsync = promisify(execFile);

export interface Engine {
  port: number;
  child: ChildProcess;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
}

/** Start `file args…`; resolves once its output matches `ready` (at once without one); killed when the test ends. */
async function startEngine(
  t: Teardown,
  file: string,
  args: string[],
  ready: RegExp | undefined,
  port: number,
): Promise<Engine> {
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  let output = '';
  if (!ready) return { port, child, exited };
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then((code) => reject(new Error(`${file} exited (${code}) before it was ready:\n${output}`)));
  });
  return { port, child, exited };
}

/** The password every test Redis asks for (`requirepass`): a cluster refuses a Redis URL without credentials. */
export const REDIS_PASSWORD = 'redis-test-password-0123456789';

/** The files of a Redis that speaks TLS only: its certificate (for 127.0.0.1) and key, and the CA that signed it. */
export interface RedisTls {
  cert: string;
  key: string;
  ca: string;
}

export interface Redis extends Engine {
  /** Its URL with the password in it, as a replica is given it. */
  url: string;
}

/**
 * A Redis with nothing persisted and a password, on a free port (or on
 * `port`, to restart one where its clients look for it); with `tls`, it
 * speaks TLS only (rediss://).
 */
export async function startRedis(t: Teardown, port?: number, tls?: RedisTls): Promise<Redis> {
  const file = requireEngine('redis-server', 'redis-server');
  port ??= await freePort();
  const listen = tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.cert, '--tls-key-file', tls.key]
    : ['--port', String(port)];
  const args = [
    ...listen,
    ...(tls ? ['--tls-ca-cert-file', tls.ca, '--tls-auth-clients', 'no'] : []),
    ...['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', REDIS_PASSWORD],
  ];
  const engine = await startEngine(t, file, args, /Ready to accept connections/, port);
  return { ...engine, url: `${tls ? 'rediss' : 'redis'}://:${REDIS_PASSWORD}@127.0.0.1:${port}` };
}

/**
 * A CA of the test's own and a certificate it signed for 127.0.0.1, made
 * with openssl in `dir`: what a Redis speaking TLS shows its clients.
 */
export async function makeRedisTls(dir: string): Promise<RedisTls> {
  const openssl = requireEngine('openssl', 'openssl');
  const file = (name: string) => join(dir, name);
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await execFileAsync(openssl, [
    'req',
    '-x509',
    ...key,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=mcp-host test CA',
  ]);
  await execFileAsync(openssl, [
    'req',
    ...key,
    '-keyout',
    file('redis.key'),
    '-out',
    file('redis.csr'),
    '-subj',
    '/CN=127.0.0.1',
  ]);
  writeFileSync(file('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  await execFileAsync(openssl, [
    'x509',
    '-req',
    '-in',
    file('redis.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('redis.pem'),
    '-days',
    '1',
    '-extfile',
    file('san.ext'),
  ]);
  return { cert: file('redis.pem'), key: file('redis.key'), ca: file('ca.pem') };
}

/** redis-cli against the (plain) test Redis on `port`: what it printed. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(requireEngine('redis-cli', 'redis-tools'), ['-p', String(port), ...args], {
    env: { ...process.env, REDISCLI_AUTH: REDIS_PASSWORD },
  });
  return stdout;
}

/**
 * HAProxy balancing round robin over `backends` (host:port), without
 * affinity. A replica that stops answering is taken out by the health
 * check, and a request that could not connect is sent to another one.
 */
export async function startHaproxy(
  t: Teardown,
  ws: Workspace,
  backends: readonly number[],
): Promise<Engine & { url: string }> {
  const file = requireEngine('haproxy', 'haproxy');
  const port = await freePort();
  const config = ws.writeFile(
    `haproxy-${port}.cfg`,
    [
      'global',
      '  maxconn 512',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      // A check answered within this counts: without it a check must answer within `inter` (300 ms), and one
      // slow /healthz on a loaded machine marks a healthy replica down (all of them: HAProxy's own 503).
      '  timeout check 2s',
      '  retries 3',
      '  option redispatch',
      // A stopping replica answers 503: the request is sent to another.
      '  retry-on conn-failure empty-response 503',
      'frontend mcp',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      '  option httpchk GET /healthz',
      ...backends.map(
        (backend, index) => `  server r${index + 1} 127.0.0.1:${backend} check inter 300ms fall 1 rise 1`,
      ),
      '',
    ].join('\n'),
  );
  // -db: stay in the foreground. It says nothing when ready: ready is its port answering through to a replica.
  const engine = await startEngine(t, file, ['-db', '-f', config], undefined, port);
  // Its first answer needs a replica's health check to have passed too: an event, bounded by EVENT_MS.
  await eventually(`HAProxy on port ${port} to answer through to a replica`, () =>
    fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    ),
  );
  return { ...engine, url: `http://127.0.0.1:${port}/mcp` };
}
