#!/usr/bin/env bash
# `npm run conformance`: the official MCP conformance suite
# (@modelcontextprotocol/conformance, server mode) judges mcp-host serving the
# conformance plugin (plugins/conformance) mounted flat over Streamable HTTP,
# at exactly what each protocol revision requires (`--requirements`).
#
# Usage: scripts/conformance.sh [--direct | --auth] [suite args...]
#   scripts/conformance.sh                          # --requirements 2025-11-25, then 2026-07-28, through the host
#   scripts/conformance.sh --direct                 # the same, against the plugin served alone (the baseline)
#   scripts/conformance.sh --url URL                # any Streamable HTTP server at URL: directly, then through the host
#                                                   # mounting it flat, side by side at each revision (the host must pass
#                                                   # at least what the server passes alone)
#   scripts/conformance.sh --streamed-json          # --url with the plugin served alone, answering 2026-07-28 requests
#                                                   # in streamed JSON bodies (several messages, one a line) where the
#                                                   # SDK would stream SSE, as the suite's reference server does
#   scripts/conformance.sh --auth                   # the same runs, the host with auth and governance on: a static
#                                                   # bearer token named "suite" (random per run, never printed),
#                                                   # access rules giving it everything, an audit log, a rate limit;
#                                                   # the suite (which sends no credentials) reaches it through HAProxy
#                                                   # adding the token; then the audit log must hold the suite's calls,
#                                                   # each with identity "suite"
#   scripts/conformance.sh --scenario ping          # one scenario (any suite args run once, as given)
# Expects a build (`npm run conformance` builds first).
#
# The suite needs Node >= 22. When the node on PATH is older, a Node 22 binary
# is installed from npm (package node-<platform>-<arch>@22) beside the suite in
# $MCP_CONFORMANCE_HOME (default ~/.cache/mcp-conformance/<suite version>); later runs reuse both.
#
# Environment: MCP_CONFORMANCE_HOME, MCP_CONFORMANCE_VERSION (default 0.2.0-alpha.12, pinned),
#   RESULTS_DIR (default a new temp dir: per run, per-scenario checks.json, the suite's and the server's logs),
#   RUN_TIMEOUT_S (default 600 per run).
# Prints PASS/FAIL per scored scenario (a scenario passes when none of its checks is a FAILURE),
# "(not scored)" for what the suite runs but does not score at that revision, then one tally line
# per run: "<revision>: N passed, M failed" (with --url: "<revision> direct: …" and "<revision> host: …",
# and the scenarios that pass directly but not through the host; with --auth, after each tally,
# "<revision> audit: PASS|FAIL N records with identity token "suite" (per method), M with another identity or none").
# Exit: 0 all passed (with --url: the host passed every scenario the server passed alone; with --auth: and
# each run's audit log holds its tool calls, every record with identity "suite"), 1 otherwise,
# 2 could not run.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUITE_VERSION="${MCP_CONFORMANCE_VERSION:-0.2.0-alpha.12}"
# One directory per suite version: runs of different versions side by side never reinstall each other's.
SUITE_HOME="${MCP_CONFORMANCE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conformance/$SUITE_VERSION}"
SUITE_CLI="$SUITE_HOME/node_modules/@modelcontextprotocol/conformance/dist/index.js"
RESULTS_DIR="${RESULTS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mcp-host-conformance.XXXXXX")}"
SERVER_PID=""
PROXY_PID=""
STREAMED_PID=""

fail_to_run() {
  echo "conformance: $*" >&2
  echo "0 passed, 0 failed (not run: $*)"
  exit 2
}

# wait_for_answer URL PID_VAR NAME LOG: wait until URL answers anything over HTTP (a bare GET refused is an
# answer). The probe carries the suite's token when there is one, so that an audit log holds no refusal of the
# script's own. Fails to run when the process whose pid PID_VAR holds (if any) exits first, or after WAIT_S seconds.
wait_for_answer() {
  local url=$1 pid_var=$2 name=$3 log=$4
  local deadline=$(($(date +%s) + ${WAIT_S:-20}))
  until MCP_CONFORMANCE_SUITE_TOKEN="${MCP_CONFORMANCE_SUITE_TOKEN:-}" node -e '
    const token = process.env.MCP_CONFORMANCE_SUITE_TOKEN;
    const headers = token ? { authorization: `Bearer ${token}` } : {};
    require("http").get(process.argv[1], { headers }, () => process.exit(0)).on("error", () => process.exit(1))' "$url" 2>/dev/null; do
    if [ -n "${!pid_var}" ] && ! kill -0 "${!pid_var}" 2>/dev/null; then
      tail -n 30 "$log" >&2
      # Gone already: nothing for the exit's clean-up to stop.
      printf -v "$pid_var" '%s' ''
      fail_to_run "$name exited before listening (log: $log)"
    fi
    [ "$(date +%s)" -ge "$deadline" ] && fail_to_run "no answer from $name at $url within ${WAIT_S:-20}s (log: $log)"
    sleep 0.2
  done
}

stop_server() {
  stop_proxy
  [ -n "$SERVER_PID" ] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null
  # Give the server its graceful shutdown (sessions closed, calls drained), then insist.
  for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$SERVER_PID" 2>/dev/null
  wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}
stop_proxy() {
  [ -n "$PROXY_PID" ] || return 0
  kill -TERM "$PROXY_PID" 2>/dev/null
  wait "$PROXY_PID" 2>/dev/null
  PROXY_PID=""
}
stop_streamed_upstream() {
  [ -n "$STREAMED_PID" ] || return 0
  kill -TERM "$STREAMED_PID" 2>/dev/null
  wait "$STREAMED_PID" 2>/dev/null
  STREAMED_PID=""
}
trap 'stop_server; stop_streamed_upstream' EXIT
trap 'exit 130' INT TERM

target=host
UPSTREAM_URL=""
if [ "${1:-}" = "--direct" ]; then target=direct; shift; fi
auth=""
if [ "${1:-}" = "--auth" ]; then auth=1; shift; fi
if [ "${1:-}" = "--url" ]; then UPSTREAM_URL="${2:?--url needs the URL of a Streamable HTTP MCP server}"; shift 2; fi
streamed=""
if [ "${1:-}" = "--streamed-json" ] && [ "$target" = host ] && [ -z "$auth$UPSTREAM_URL" ]; then streamed=1; shift; fi
if [ -n "$auth" ] && { [ "$target" != host ] || [ -n "$UPSTREAM_URL" ] || [ "${1:-}" = "--direct" ]; }; then
  fail_to_run "--auth judges the host serving the conformance plugin: it does not combine with --direct or --url"
fi
case " $* " in *" --streamed-json "*)
  fail_to_run "--streamed-json is an upstream of its own, judged directly and through the host: give it first and alone" ;;
esac

command -v node >/dev/null || fail_to_run "node is not on PATH"
[ -f "$REPO/dist/bundle/cli.js" ] || fail_to_run "no build at $REPO/dist (run: npm run build)"
[ -d "$REPO/node_modules/@mcp-host/conformance" ] ||
  fail_to_run "@mcp-host/conformance is not linked (run: npm install at $REPO)"
[ -z "$auth" ] || command -v haproxy >/dev/null ||
  fail_to_run "--auth needs haproxy on PATH, the proxy that adds the suite's token (install it: apt-get install haproxy)"

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

# --- with --auth: the token, and the proxy that sends it (start_proxy) ------------------------
if [ -n "$auth" ]; then
  # Random per run, handed only to the host and to HAProxy in their environment: never on disk, never printed.
  MCP_CONFORMANCE_SUITE_TOKEN="$(node -p 'require("node:crypto").randomBytes(32).toString("base64url")')"
fi

# --- with --streamed-json: the plugin alone, answering in streamed JSON bodies, judged as --url judges -----
if [ -n "$streamed" ]; then
  mkdir -p "$RESULTS_DIR"
  streamed_port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  node "$REPO/dist/bench/serve-direct-http.js" "$REPO/plugins/conformance/index.js" "127.0.0.1:$streamed_port" \
    --streamed-json </dev/null >"$RESULTS_DIR/streamed-json-upstream.log" 2>&1 &
  STREAMED_PID=$!
  UPSTREAM_URL="http://127.0.0.1:$streamed_port/mcp"
  wait_for_answer "$UPSTREAM_URL" STREAMED_PID "the streamed-JSON upstream" "$RESULTS_DIR/streamed-json-upstream.log"
fi

# --- one run: a fresh server under test, the suite, the tally -------------------------------
# A config mounting the server at --url flat (the host is what is judged, against that server's own baseline).
CONFIG="$REPO/test/conformance/mcp-host.config.js"
if [ -n "$UPSTREAM_URL" ]; then
  CONFIG="$RESULTS_DIR/mcp-host.config.mjs"
  mkdir -p "$RESULTS_DIR"
  printf 'export default { reload: { watch: false }, plugins: [{ url: %s, flat: true }] };\n' \
    "$(node -p 'JSON.stringify(process.argv[1])' "$UPSTREAM_URL")" >"$CONFIG"
fi

# start_proxy DIR HOST_PORT: HAProxy on a free 127.0.0.1 port, in front of the host at HOST_PORT, setting
# `Authorization: Bearer <token>` on every request and passing the rest through as it is: Host and Origin
# (dns-rebinding-protection judges the host's answer to them), every other header, bodies and SSE streams
# in both directions. Sets PROXY_URL and PROXY_PID.
start_proxy() {
  local dir="$1" host_port="$2" proxy_port
  proxy_port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  # HAProxy expands "${VAR}" from its environment: the token is in no file. Long timeouts: an SSE stream
  # (a GET, a call with progress) may stay open quietly for as long as the suite waits on it.
  cat >"$dir/haproxy.cfg" <<CFG
global
  maxconn 512
defaults
  mode http
  timeout connect 5s
  timeout client 10m
  timeout server 10m
frontend suite
  bind 127.0.0.1:$proxy_port
  http-request set-header Authorization "Bearer \${MCP_CONFORMANCE_SUITE_TOKEN}"
  default_backend host
backend host
  server host 127.0.0.1:$host_port
CFG
  MCP_CONFORMANCE_SUITE_TOKEN="$MCP_CONFORMANCE_SUITE_TOKEN" haproxy -db -f "$dir/haproxy.cfg" </dev/null >"$dir/haproxy.log" 2>&1 &
  PROXY_PID=$!
  PROXY_URL="http://127.0.0.1:$proxy_port/mcp"
  wait_for_answer "$PROXY_URL" PROXY_PID "HAProxy (config: $dir/haproxy.cfg)" "$dir/haproxy.log"
}

# check_audit FILE LABEL [calls]: the host (stopped, so its log is flushed) recorded the suite's requests,
# each under the identity the proxy's token names (with "calls": and among them tool calls, as a whole
# run makes). Prints "LABEL audit: …"; returns 1 when it did not.
check_audit() {
  node - "$1" "$2" "${3:-}" <<'JS'
const fs = require('node:fs');
const [file, label, required] = process.argv.slice(2);
if (!fs.existsSync(file)) {
  console.log(`${label} audit: FAIL no audit file at ${file} (see the host's log beside it)`);
  process.exit(1);
}
const records = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const bySuite = records.filter((r) => r.identity?.kind === 'token' && r.identity?.name === 'suite');
const others = records.length - bySuite.length;
const methods = {};
for (const r of bySuite) methods[r.method] = (methods[r.method] ?? 0) + 1;
const calls = methods['tools/call'] ?? 0;
const perMethod = Object.entries(methods).map(([m, n]) => `${m} ${n}`).join(', ');
const missingCalls = required === 'calls' && calls === 0;
const ok = !missingCalls && others === 0;
console.log(
  `${label} audit: ${ok ? 'PASS' : 'FAIL'} ${bySuite.length} records with identity token "suite" (${perMethod || 'none'})` +
    `, ${others} with another identity or none${missingCalls ? ', and no tools/call record' : ''} (${file})`,
);
process.exit(ok ? 0 : 1);
JS
}

# run LABEL SUITE_ARGS...: prints the run's scenarios and, last, "LABEL: N passed, M failed"; returns 0 when all passed.
run() {
  local label="$1"; shift
  local dir="$RESULTS_DIR/$label"
  mkdir -p "$dir"
  local port url log
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  url="http://127.0.0.1:$port/mcp"
  log="$dir/$target.log"
  if [ "$target" = direct ] && [ -n "$UPSTREAM_URL" ]; then
    # The server under --url is the operator's, already running: judged as it is, nothing started.
    url="$UPSTREAM_URL"
  elif [ "$target" = host ] && [ -n "$auth" ]; then
    MCP_CONFORMANCE_SUITE_TOKEN="$MCP_CONFORMANCE_SUITE_TOKEN" MCP_CONFORMANCE_AUDIT_FILE="$dir/audit.log" \
      node "$REPO/dist/bundle/cli.js" start --config "$REPO/test/conformance/mcp-host.auth.config.js" \
      --http "127.0.0.1:$port" </dev/null >"$log" 2>&1 &
  elif [ "$target" = host ]; then
    node "$REPO/dist/bundle/cli.js" start --config "$CONFIG" --http "127.0.0.1:$port" </dev/null >"$log" 2>&1 &
  else
    node "$REPO/dist/bench/serve-direct-http.js" "$REPO/plugins/conformance/index.js" \
      "127.0.0.1:$port" </dev/null >"$log" 2>&1 &
  fi
  [ "$url" = "$UPSTREAM_URL" ] || SERVER_PID=$!

  wait_for_answer "$url" SERVER_PID "the $target server" "$log"
  if [ -n "$auth" ]; then start_proxy "$dir" "$port"; url="$PROXY_URL"; fi

  local suite_log="$dir/suite.log"
  local what="$target${UPSTREAM_URL:+ mounting $UPSTREAM_URL}"
  [ "$url" = "$UPSTREAM_URL" ] && what="$UPSTREAM_URL directly"
  [ -n "$auth" ] && what="$what with auth (through HAProxy adding the bearer token)"
  echo "conformance $SUITE_VERSION | node $("$SUITE_NODE" -v) | $what at $url | $* | results in $dir"
  local bounded=()
  command -v timeout >/dev/null && bounded=(timeout "${RUN_TIMEOUT_S:-600}")
  "${bounded[@]}" "$SUITE_NODE" "$SUITE_CLI" server --url "$url" -o "$dir" "$@" >"$suite_log" 2>&1
  local suite_status=$?
  stop_server

  # Tally from the checks each scenario saved, not from the suite's console output: a scored
  # scenario that started but saved nothing (it crashed, or the run timed out) counts as failed.
  node - "$dir" "$suite_log" "$suite_status" "$label" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const [dir, logFile, status, label] = process.argv.slice(2);
const log = fs.readFileSync(logFile, 'utf8');
const started = [...log.matchAll(/^Running client scenario '(.+)' against server/gm)].map((m) => m[1]);
const announced = Number(/^Running (?:\S+ suite|requirements \S+) \((\d+) scenarios\)/m.exec(log)?.[1] ?? started.length);
// What the suite runs at a revision but does not score there (extensions, pending scenarios).
const notScored = log.includes('Not scored for')
  ? new Set([...log.split(/^Not scored for/m).pop().matchAll(/^\s+[✓✗] (\S+) \((?:extension|pending)\)$/gm)].map((m) => m[1]))
  : new Set();
const dirs = fs.readdirSync(dir);
let passed = 0;
let failed = 0;
for (const name of started) {
  const saved = dirs.find((d) => d.startsWith(`server-${name}-`) && /^\d{4}-\d\d-\d\dT/.test(d.slice(name.length + 8)));
  const file = saved && path.join(dir, saved, 'checks.json');
  const scored = !notScored.has(name);
  if (!file || !fs.existsSync(file)) {
    if (!scored) continue;
    failed++;
    console.log(`FAIL  ${name}  (no result saved; see ${logFile})`);
    continue;
  }
  const checks = JSON.parse(fs.readFileSync(file, 'utf8'));
  const failures = checks.filter((c) => c.status === 'FAILURE');
  const successes = checks.filter((c) => c.status === 'SUCCESS').length;
  const warnings = checks.filter((c) => c.status === 'WARNING').length;
  const counts = `${successes} checks passed, ${failures.length} failed${warnings ? `, ${warnings} warnings` : ''}`;
  if (!scored) {
    console.log(`(not scored)  ${name}  (${counts})`);
    continue;
  }
  if (failures.length === 0) passed++;
  else failed++;
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
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
JS
  local tally_status=$?
  if [ -n "$auth" ]; then
    # A run of the suite's own args may make no audited request; a revision's run makes tool calls.
    check_audit "$dir/audit.log" "$label" "$([ "$label" = custom ] || echo calls)" || return 1
  fi
  return "$tally_status"
}

# --- the runs -------------------------------------------------------------------------------
mkdir -p "$RESULTS_DIR"
# Each run prints through tee but runs in this shell, so its server is stopped by the EXIT trap however it ends.
if [ $# -gt 0 ]; then
  run custom "$@" > >(tee -a "$RESULTS_DIR/tally.txt")
  exit $?
fi
status=0
if [ -n "$UPSTREAM_URL" ]; then
  # Side by side: the server alone, then through the host; the host is judged against the server.
  for revision in 2025-11-25 2026-07-28; do
    for target in direct host; do
      run "$revision $target" --requirements "$revision" >"$RESULTS_DIR/$revision-$target.txt"
      tee -a "$RESULTS_DIR/tally.txt" <"$RESULTS_DIR/$revision-$target.txt"
    done
    lost="$(comm -23 <(sed -n 's/^PASS  \([^ ]*\).*/\1/p' "$RESULTS_DIR/$revision-direct.txt" | sort) \
      <(sed -n 's/^PASS  \([^ ]*\).*/\1/p' "$RESULTS_DIR/$revision-host.txt" | sort))"
    if [ -n "$lost" ]; then
      status=1
      echo "$revision: passes directly but not through the host: $(echo $lost)" >>"$RESULTS_DIR/tally.txt"
    fi
  done
  echo "--- conformance $SUITE_VERSION, $UPSTREAM_URL directly and through mcp-host:"
  grep -E '^(2025-11-25|2026-07-28)( direct| host|: passes)' "$RESULTS_DIR/tally.txt"
  exit "$status"
fi
for revision in 2025-11-25 2026-07-28; do
  run "$revision" --requirements "$revision" > >(tee -a "$RESULTS_DIR/tally.txt") || status=1
done
wait
echo "--- conformance $SUITE_VERSION, $target${auth:+ with auth}:"
grep -E '^(2025-11-25|2026-07-28):? ' "$RESULTS_DIR/tally.txt"
exit "$status"
