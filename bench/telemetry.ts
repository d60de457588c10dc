/**
 * Telemetry's cost (part of `npm run bench`): the same host serving the
 * bench's echo plugin over stdio, three times: twice with telemetry off
 * (the two show the run's noise, and off must sit within it) and once on,
 * exporting every span and metric over OTLP/HTTP (JSON) to a receiver in
 * this process on 127.0.0.1. Measured in rotating rounds so machine noise
 * hits all three alike, each figure the median round's time per call; the
 * receiver counts the spans it got, so a figure is never flattered by spans
 * dropped unexported.
 *
 * BENCH_ROUNDS and BENCH_CALLS scale the run. BENCH_BASELINE_CLI, the
 * cli.js of another build (one without telemetry, say), adds that build as
 * a fourth host, to compare "off" with it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI } from '../test/helpers/host.js';
import { REPO_ROOT } from '../test/helpers/packages.js';
import { median } from './median.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const WARMUP_ROUNDS = 5;

/** A local OTLP/HTTP receiver that counts the spans posted to it. */
async function startReceiver(): Promise<{ url: string; spans: () => number; close: () => void }> {
  let spans = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') spans += (body.match(/"spanId"/g) ?? []).length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    close: () => server.close(),
  };
}

async function connect(config: string, env: Record<string, string>, cli = CLI): Promise<Client> {
  const client = new Client({ name: 'mcp-host-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'start', '--config', config],
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'ignore',
    }),
  );
  return client;
}

async function sequentialCalls(client: Client): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await client.callTool({ name: 'bench.echo', arguments: { text: `call ${i}` } });
  return Number(process.hrtime.bigint() - started) / 1e3;
}

const dir = join(REPO_ROOT, '.tmp', 'bench-telemetry');
mkdirSync(dir, { recursive: true });
const config = join(dir, 'mcp-host.config.js');
writeFileSync(
  config,
  `export default { plugins: [{ package: ${JSON.stringify(join(REPO_ROOT, 'bench/echo-plugin'))} }], reload: { watch: false } };\n`,
);
const receiver = await startReceiver();
const hosts = {
  'off (a)': await connect(config, {}),
  'off (b)': await connect(config, {}),
  'on, OTLP to 127.0.0.1': await connect(config, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    OTEL_METRIC_EXPORT_INTERVAL: '1000',
  }),
};
const baseline = process.env.BENCH_BASELINE_CLI;
if (baseline) Object.assign(hosts, { 'baseline build': await connect(config, {}, baseline) });
console.log(`telemetry: ${ROUNDS} alternating rounds of ${CALLS} sequential tools/call over stdio, per call`);
for (const client of Object.values(hosts)) for (let i = 0; i < WARMUP_ROUNDS; i++) await sequentialCalls(client);
const rounds = Object.fromEntries(Object.keys(hosts).map((name) => [name, [] as number[]]));
const entries = Object.entries(hosts);
for (let round = 0; round < ROUNDS; round++) {
  // Rotate the order so that none always runs on a warmer machine.
  for (let i = 0; i < entries.length; i++) {
    const [name, client] = entries[(round + i) % entries.length]!;
    rounds[name]!.push((await sequentialCalls(client)) / CALLS);
  }
}
// Closing a host's stdin stops it, which exports what its exporter still holds.
await Promise.all(Object.values(hosts).map((client) => client.close()));
const perCall = (name: string) => median(rounds[name]!);
const off = perCall('off (a)');
for (const name of Object.keys(hosts)) {
  console.log(
    `  ${name.padEnd(24)} ${perCall(name).toFixed(0).padStart(6)} µs   ${(perCall(name) / off).toFixed(2)}x off (a)   no goal: telemetry's cost, for context`,
  );
}
// Two spans a call: the server span, and the client span to the mount.
const made = 2 * (WARMUP_ROUNDS + ROUNDS) * CALLS;
const deadline = Date.now() + 10_000;
while (receiver.spans() < made && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
console.log(`  spans received by the OTLP receiver: ${receiver.spans()} of ${made} made`);
receiver.close();
