/**
 * The floor of any server's `tools/list`, for `npm run bench`: a stdio
 * server that answers `tools/list` with a result recorded in advance,
 * written as the text it already is. It builds nothing, converts nothing,
 * serialises nothing per request: what a client then spends on a list is
 * the pipe and its own reading (the SDK clients parse the whole line and
 * validate every tool), which no server, host or not, can take off it.
 * It answers `initialize` (echoing the client's revision, 2025-era) and
 * nothing else a client of the bench needs; other requests get an empty
 * result.
 * Usage: node dist/bench/serve-recorded-list-stdio.js RESULT_JSON_FILE
 */
import { readFileSync } from 'node:fs';
import { LineSplitter } from '../host/line-splitter.js';

const file = process.argv[2];
if (!file) throw new Error('usage: serve-recorded-list-stdio RESULT_JSON_FILE');
const recordedResult = readFileSync(file, 'utf8');

interface Request {
  id?: string | number;
  method: string;
  params?: { protocolVersion?: string };
}

function answer(request: Request): string {
  const id = JSON.stringify(request.id);
  if (request.method === 'tools/list') return `{"jsonrpc":"2.0","id":${id},"result":${recordedResult}}\n`;
  const result =
    request.method === 'initialize'
      ? {
          protocolVersion: request.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'recorded-list', version: '1.0.0' },
        }
      : {};
  return `${JSON.stringify({ jsonrpc: '2.0', id: request.id, result })}\n`;
}

const lines = new LineSplitter(Number.POSITIVE_INFINITY, {
  line(text) {
    const request = JSON.parse(text) as Request;
    if (request.id !== undefined) process.stdout.write(answer(request));
  },
  oversized() {},
});
process.stdin.on('data', (chunk: Buffer) => lines.push(chunk));
