#!/usr/bin/env bash
# `npm run conformance`: the official MCP conformance suite
# (@modelcontextprotocol/conformance, server mode) judges mcp-host serving the
# conformance plugin (plugins/conformance) mounted flat over Streamable HTTP.
#
# Usage: scripts/conformance.sh [--direct] [suite args...]
#   scripts/conformance.sh                        # the active suite, through the host
#   scripts/conformance.sh --direct               # the same, against the plugin served alone (the baseline)
#   scripts/conformance.sh --scenario ping        # one scenario
#   scripts/conformance.sh --suite all            # active + pending scenarios
# Expects a build (`npm run conformance` builds first).
#
# The suite needs Node >= 22. When the node on PATH is older, a Node 22 binary
# is installed from npm (package node-<platform>-<arch>@22) beside the suite in
# $MCP_CONFORMANCE_HOME (default ~/.cache/mcp-conformance); later runs reuse both.
#
# Environment: MCP_CONFORMANCE_HOME, MCP_CONFORMANCE_VERSION (default 0.1.16),
#   RESULTS_DIR (default a new temp dir: per-scenario checks.json, the suite's and the server's logs),
#   RUN_TIMEOUT_S (default 600).
# Prints PASS/FAIL per scenario (a scenario passes when none of its checks is a FAILURE), then
# "N passed, M failed". Exit: 0 all passed, 1 some failed, 2 could not run.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUITE_HOME="${MCP_CONFORMANCE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conformance}"
SUITE_VERSION="${MCP_CONFORMANCE_VERSION:-0.1.16}"
SUITE_CLI="$SUITE_HOME/node_modules/@modelcontextprotocol/conformance/dist/index.js"
RESULTS_DIR="${RESULTS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mcp-host-conformance.XXXXXX")}"
SERVER_PID=""

fail_to_run() {
  echo "conformance: $*" >&2
  echo "0 passed, 0 failed (not run: $*)"
  exit 2
}

stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null
  # Give the server its graceful shutdown (sessions closed, calls drained), then insist.
  for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$SERVER_PID" 2>/dev/null
  wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}
trap stop_server EXIT
trap 'exit 130' INT TERM

target=host
if [ "${1:-}" = "--direct" ]; then target=direct; shift; fi

command -v node >/dev/null || fail_to_run "node is not on PATH"
[ -f "$REPO/dist/host/cli.js" ] || fail_to_run "no build at $REPO/dist (run: npm run build)"
[ -d "$REPO/node_modules/@mcp-host/conformance" ] ||
  fail_to_run "@mcp-host/conformance is not linked (run: npm install at $REPO)"

# --- the suite, and a Node that can run it --------------------------------------------------
if [ "$(node -p 'Number(process.versions.node.split(".")[0])')" -ge 22 ]; then
  SUITE_NODE="$(command -v node)"
else
  NODE_PACKAGE="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
  SUITE_NODE="$SUITE_HOME/node_modules/$NODE_PACKAGE/bin/node"
fi
if [ ! -x "$SUITE_NODE" ] || [ ! -f "$SUITE_CLI" ] ||
  [ "$(node -p "require('$SUITE_HOME/node_modules/@modelcontextprotocol/conformance/package.json').version" 2>/dev/null)" != "$SUITE_VERSION" ]; then
  mkdir -p "$SUITE_HOME" || fail_to_run "cannot create $SUITE_HOME"
  [ -f "$SUITE_HOME/package.json" ] || echo '{ "name": "mcp-conformance-runner", "private": true }' >"$SUITE_HOME/package.json"
  packages=("@modelcontextprotocol/conformance@$SUITE_VERSION")
  [ -n "${NODE_PACKAGE:-}" ] && packages+=("$NODE_PACKAGE@22")
  echo "installing ${packages[*]} into $SUITE_HOME ..." >&2
  (cd "$SUITE_HOME" && npm install --no-audit --no-fund --loglevel=error "${packages[@]}" >&2) ||
    fail_to_run "npm install ${packages[*]} failed"
fi
[ -x "$SUITE_NODE" ] || fail_to_run "no Node 22 at $SUITE_NODE"

# --- the server under test ------------------------------------------------------------------
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
URL="http://127.0.0.1:$PORT/mcp"
SERVER_LOG="$RESULTS_DIR/$target.log"
mkdir -p "$RESULTS_DIR"
if [ "$target" = host ]; then
  node "$REPO/dist/host/cli.js" start --config "$REPO/test/conformance/mcp-host.config.js" \
    --http "127.0.0.1:$PORT" </dev/null >"$SERVER_LOG" 2>&1 &
else
  node "$REPO/dist/bench/serve-direct-http.js" "$REPO/plugins/conformance/index.js" \
    "127.0.0.1:$PORT" </dev/null >"$SERVER_LOG" 2>&1 &
fi
SERVER_PID=$!

# Ready when /mcp answers anything over HTTP (a bare GET is refused: that is an answer).
deadline=$(($(date +%s) + ${WAIT_S:-20}))
until node -e 'require("http").get(process.argv[1],(r)=>process.exit(0)).on("error",()=>process.exit(1))' "$URL" 2>/dev/null; do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    tail -n 30 "$SERVER_LOG" >&2
    SERVER_PID=""
    fail_to_run "the $target server exited before listening (log: $SERVER_LOG)"
  fi
  [ "$(date +%s)" -ge "$deadline" ] && fail_to_run "no answer from $URL within ${WAIT_S:-20}s (log: $SERVER_LOG)"
  sleep 0.2
done

# --- the run --------------------------------------------------------------------------------
SUITE_LOG="$RESULTS_DIR/suite.log"
echo "conformance $SUITE_VERSION | node $("$SUITE_NODE" -v) | $target at $URL | ${*:-active suite} | results in $RESULTS_DIR"
bounded=()
command -v timeout >/dev/null && bounded=(timeout "${RUN_TIMEOUT_S:-600}")
"${bounded[@]}" "$SUITE_NODE" "$SUITE_CLI" server --url "$URL" -o "$RESULTS_DIR" "$@" >"$SUITE_LOG" 2>&1
suite_status=$?
stop_server

# Tally from the checks each scenario saved, not from the suite's console output: a scenario
# that started but saved nothing (it crashed, or the run timed out) counts as failed.
node - "$RESULTS_DIR" "$SUITE_LOG" "$suite_status" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const [dir, logFile, status] = process.argv.slice(2);
const log = fs.readFileSync(logFile, 'utf8');
const started = [...log.matchAll(/^Running client scenario '(.+)' against server/gm)].map((m) => m[1]);
const announced = Number(/^Running \S+ suite \((\d+) scenarios\)/m.exec(log)?.[1] ?? started.length);
const dirs = fs.readdirSync(dir);
let passed = 0;
let failed = 0;
for (const name of started) {
  const saved = dirs.find((d) => d.startsWith(`server-${name}-`) && /^\d{4}-\d\d-\d\dT/.test(d.slice(name.length + 8)));
  const file = saved && path.join(dir, saved, 'checks.json');
  if (!file || !fs.existsSync(file)) {
    failed++;
    console.log(`FAIL  ${name}  (no result saved; see ${logFile})`);
    continue;
  }
  const checks = JSON.parse(fs.readFileSync(file, 'utf8'));
  const failures = checks.filter((c) => c.status === 'FAILURE');
  const successes = checks.filter((c) => c.status === 'SUCCESS').length;
  const warnings = checks.filter((c) => c.status === 'WARNING').length;
  if (failures.length === 0) passed++;
  else failed++;
  const counts = `${successes} checks passed, ${failures.length} failed${warnings ? `, ${warnings} warnings` : ''}`;
  console.log(`${failures.length === 0 ? 'PASS' : 'FAIL'}  ${name}  (${counts})`);
  for (const check of failures) console.log(`        ${check.id}: ${check.errorMessage ?? check.description}`);
}
if (announced > started.length) {
  failed += announced - started.length;
  console.log(`${announced - started.length} scenario(s) never started (suite exit ${status}); see ${logFile}`);
}
if (started.length === 0 && announced === 0) {
  failed++;
  console.log(`the suite ran no scenario (exit ${status}); see ${logFile}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
JS
