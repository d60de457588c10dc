/**
 * The command line: its usage, its flags, and each command run when asked
 * (cli.ts runs it once the compile cache is on).
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createLogger } from './log.js';
import { ReportLog } from './commands/report-log.js';
import { HostError, ProblemsError, describeThrown, formatProblem } from './errors.js';
import { HOST_VERSION } from './version.js';
import type { StartOptions } from './commands/start.js';
import { parseListenAddress } from './serve/listen-address.js';
import { exitHost, installFaultAttribution } from './mounts/fault-attribution.js';
import { markPluginOutput } from './mounts/plugin-output.js';
import { describeCompileCache, type CompileCacheState } from './compile-cache.js';

const USAGE: Record<string, string> = {
  main: `mcp-host ${HOST_VERSION}: one MCP server built out of many

Usage:
  mcp-host [start] [CONFIG | --config PATH] [--stdio] [--http [HOST:]PORT] [--server NAME]
  mcp-host check [CONFIG | --config PATH] [--allow-withheld] [--options JSON]
  mcp-host list [CONFIG | --config PATH] [--json]
  mcp-host reload [--cluster | --plugin NAME] [CONFIG | --config PATH]
  mcp-host status [--cluster] [--json] [CONFIG | --config PATH]
  mcp-host pin [--diff] [CONFIG | --config PATH]
  mcp-host access explain [--config PATH] [--sub S] [--client-id C] [--scope "A B"] [--group G]… [--role R]… [--token NAME] [--stdio] [--server NAME]
  mcp-host init [--plugin NAME]
  mcp-host add PACKAGE [--prefix P | --flat] [--arg VALUE]… [--env NAME[=VALUE]]… [--bin NAME] [--allow-scripts] [--config PATH]
  mcp-host <command> --help

The config: --config PATH, or CONFIG (the same, as a positional argument), or the
MCP_HOST_CONFIG environment variable; without any, it is searched for from the working
directory up to the project root.

Exit status: 0 success, 1 a problem with the config, a plugin or a reload, 2 wrong usage.`,
  start: `Usage: mcp-host [start] [CONFIG | --config PATH] [--stdio] [--http [HOST:]PORT] [--server NAME]

Serve the composed catalogue. Over stdio unless the config's "http" or --http asks for HTTP.
  CONFIG          the config file, as a positional argument (mcp-host start ./mcp-host.config.js):
                  a client that has a --config option of its own (the MCP Inspector) passes it on
  --config PATH   the config file (default: MCP_HOST_CONFIG, else found from the working directory upward)
  --stdio         serve over stdio even when the config configures HTTP
  --http ADDR     serve Streamable HTTP at ADDR ([HOST:]PORT, host default 127.0.0.1) on /mcp
                  (and each virtual server of the config's "servers" on /mcp/NAME)
  --server NAME   over stdio, serve the virtual server NAME of the config's "servers" instead of
                  the whole catalogue

Environment:
  MCP_HOST_CONFIG        the config file, when neither CONFIG nor --config is given
  MCP_HOST_HTTP_TOKENS   comma-separated bearer tokens; when set, HTTP clients must send one`,
  check: `Usage: mcp-host check [CONFIG | --config PATH] [--allow-withheld] [--options JSON]

Resolve and check every plugin, create the accepted ones, preflight the composed catalogue and
print it. Lists every problem found and exits 1 if there is any.
  --allow-withheld   exit 0 even when the config's pins: 'refuse' withholds a definition that
                     drifted from mcp-host.lock.json (by default that exits 1)

Run in a plugin's own package directory (no config found, its package.json has an "mcp-host"
field), it checks that package as a plugin: manifest, definition, a dry create() with the
--options given (default {}), and its tools under the names they would get.
  --config PATH   the config file, or CONFIG (default: MCP_HOST_CONFIG, else found from the
                  working directory upward)
  --options JSON  the options a plugin package's dry create() is given (default {})`,
  access: `Usage: mcp-host access explain [--config PATH] [--sub S] [--client-id C] [--scope "A B"] [--group G]… [--role R]… [--token NAME] [--stdio] [--server NAME]

Print, for one identity, every item of the composed catalogue it sees under the config's access
rules and the rule that lets it (index and who), and every item it is denied and why: no rule is
for it, or the rules for it do not list the item (and which rules for others do).
  --sub S                  an OAuth token's sub claim
  --client-id C            its client_id claim
  --scope "A B"            the scopes it grants, space-separated
  --group G                in its groups claim (repeatable)
  --role R                 in its roles claim (repeatable)
  --token NAME             a static token's name (http.auth tokens given as NAME:TOKEN)
  --stdio                  the client on the host's stdin and stdout
  --server NAME            as a client of that virtual server of the config's "servers": what it sees is
                           the server's members that its rules allow
  --config PATH            the config file (default: found from the working directory upward)`,
  init: `Usage: mcp-host init [--plugin NAME]

Write a starter mcp-host.config.js in the current directory: an ES module or CommonJS, as the
nearest package.json "type" says, mounting nothing yet. Never overwrites a config.
  --plugin NAME   write a plugin package in ./NAME instead: package.json (with its "mcp-host"
                  field), index.js serving a tool, a prompt and a resource, and a test through
                  mcp-host/testing; npm install, npm test and mcp-host check work in it as written`,
  add: `Usage: mcp-host add PACKAGE [--prefix P | --flat] [--arg VALUE]… [--env NAME[=VALUE]]… [--bin NAME] [--allow-scripts] [--config PATH]

npm install PACKAGE (a registry name, a local directory or a tarball) next to the config, check
it as check would with its entry added, and only then add the entry to the config file, keeping
the file's formatting and comments. A refused package leaves the config unchanged.
npm installs with scripts off (--ignore-scripts): install scripts are the package's code, and none
runs before the package passed its check.
  --prefix P         mount under prefix P (default: the package's own prefix, else one from its name)
  --flat             mount with names unchanged
  --allow-scripts    once the package passed its check, run the install scripts of what was installed
                     (npm rebuild); without it, add says which packages have them and how to run them
For an MCP server package (run as a stdio child):
  --arg VALUE        an argument its bin is run with (repeat, in order), e.g. the directory a
                     filesystem server may use
  --env NAME         pass the host's own environment variable NAME (written as process.env.NAME,
                     so the value stays out of the config); --env NAME=VALUE writes the value
  --bin NAME         which of its bins to run, when it has several
A server whose check wrote on its stderr and served no tools (or printed its usage) has those lines
shown, so that a server needing arguments says so.
  --config PATH      the config file to add to (default: found from the working directory upward)`,
  list: `Usage: mcp-host list [CONFIG | --config PATH] [--json]

Print the composed catalogue (tools, prompts, resources, templates) by mount.
  --config PATH   the config file, or CONFIG (default: MCP_HOST_CONFIG, else found from the
                  working directory upward)
  --json          machine-readable output`,
  reload: `Usage: mcp-host reload [--cluster | --plugin NAME] [CONFIG | --config PATH]

Ask every host running this config (on this machine, as this user) to reload it now, and print
what changed: plugins added, removed or replaced; tools, prompts, resources and templates added,
removed or changed. A refused reload prints every problem and exits 1; the host keeps serving its
previous catalogue. Exits 1 too when no host is running this config.
  --config PATH   the config file the host was started with, or CONFIG (default: MCP_HOST_CONFIG,
                  else found from the working directory upward, as start finds it)
  --cluster       ask every replica of the config's cluster instead (through its Redis, from any
                  machine), and print each one's result
  --plugin NAME   also start the mount NAME (its prefix or package name) afresh, its code imported
                  anew, even when nothing changed on disk: the other plugins keep their instances

A running host also reloads by itself when its config file, an installed plugin's package.json, or
a file of a local or linked plugin changes (config "reload.watch", default on), and on SIGHUP.`,
  status: `Usage: mcp-host status [--cluster] [--json] [CONFIG | --config PATH]

Show what every host running this config (on this machine, as this user) serves: its generation,
the hash of the config it runs, its uptime, its open sessions and its mounts' states (with why a
mount is down). Exits 1 when no host is running this config.
  --config PATH   the config file the host was started with, or CONFIG (default: MCP_HOST_CONFIG,
                  else found from the working directory upward)
  --cluster       list every replica of the config's cluster instead (through its Redis, from any
                  machine); warn when the replicas run different configs; exit 1 when a registered
                  replica did not answer
  --json          machine-readable output`,
  pin: `Usage: mcp-host pin [--diff] [CONFIG | --config PATH]

Write mcp-host.lock.json beside the config: a hash of every served tool's and prompt's definition
(name, title, description, schemas, annotations), per plugin. With a lock present, a definition that
no longer matches it is logged and shown by check and reload (config pins: 'warn', the default) or
withheld from clients until pinned again (pins: 'refuse').
  --diff   write nothing; show, per tool and prompt, which fields drifted from the lock and how.
           Exits 1 when anything drifted.
  --config PATH   the config file, or CONFIG (default: MCP_HOST_CONFIG, else found from the
                  working directory upward)`,
};

class UsageError extends Error {}

async function main(argv: string[], compileCache: CompileCacheState): Promise<number> {
  const commands = ['start', 'check', 'list', 'reload', 'status', 'pin', 'init', 'add', 'access'];
  const first = argv[0];
  // `mcp-host FILE` is `mcp-host start FILE`, as the usage's optional "start" says.
  const namesFile = first !== undefined && !commands.includes(first) && existsSync(first);
  const command = first !== undefined && !first.startsWith('-') && !namesFile ? first : 'start';
  const rest = first === command ? argv.slice(1) : argv;
  if (!commands.includes(command)) {
    throw new UsageError(
      /[/\\.]/.test(command)
        ? `unknown command "${command}", and no config file there either (a relative path starts from ${process.cwd()})`
        : `unknown command "${command}"`,
    );
  }

  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: {
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        json: { type: 'boolean' },
        diff: { type: 'boolean' },
        cluster: { type: 'boolean' },
        stdio: { type: 'boolean' },
        http: { type: 'string' },
        version: { type: 'boolean' },
        prefix: { type: 'string' },
        flat: { type: 'boolean' },
        arg: { type: 'string', multiple: true },
        env: { type: 'string', multiple: true },
        bin: { type: 'string' },
        'allow-scripts': { type: 'boolean' },
        options: { type: 'string' },
        'allow-withheld': { type: 'boolean' },
        sub: { type: 'string' },
        'client-id': { type: 'string' },
        scope: { type: 'string' },
        group: { type: 'string', multiple: true },
        role: { type: 'string', multiple: true },
        token: { type: 'string' },
        plugin: { type: 'string' },
        server: { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    throw new UsageError(describeThrown(error));
  }
  if (values.version) {
    process.stdout.write(`${HOST_VERSION}\n`);
    return 0;
  }
  if (values.help) {
    process.stdout.write(`${argv[0] === command ? USAGE[command] : USAGE.main}\n`);
    return 0;
  }
  if (values.json && command !== 'list' && command !== 'status')
    throw new UsageError('--json goes with "list" or "status"');
  if (values.diff && command !== 'pin') throw new UsageError('--diff goes with "pin"');
  if (values.cluster && command !== 'reload' && command !== 'status')
    throw new UsageError('--cluster goes with "reload" or "status"');
  if (
    (values.prefix !== undefined ||
      values.flat ||
      values.arg ||
      values.env ||
      values.bin !== undefined ||
      values['allow-scripts']) &&
    command !== 'add'
  )
    throw new UsageError('--prefix, --flat, --arg, --env, --bin and --allow-scripts go with "add"');
  if (values.options !== undefined && command !== 'check') throw new UsageError('--options goes with "check"');
  // `init --plugin NAME` scaffolds a plugin; `reload --plugin NAME` restarts one mount (of this host: not --cluster).
  if (values.plugin !== undefined && !(command === 'init' || (command === 'reload' && !values.cluster)))
    throw new UsageError('--plugin goes with "init" (a new plugin package) or "reload" (without --cluster)');
  if (values['allow-withheld'] && command !== 'check') throw new UsageError('--allow-withheld goes with "check"');
  const identityFlags = [values.sub, values['client-id'], values.scope, values.group, values.role, values.token];
  if (identityFlags.some((value) => value !== undefined) && command !== 'access')
    throw new UsageError('--sub, --client-id, --scope, --group, --role and --token go with "access explain"');
  if (values.server !== undefined && command !== 'start' && command !== 'access')
    throw new UsageError('--server goes with "start" (over stdio) or "access explain"');
  const configPath = configPathOf(command, positionals, values.config);

  const level = process.env.MCP_HOST_LOG_LEVEL as 'info' | undefined;
  // check's output is a report: what it logs becomes report lines, in words (unless a log level asks for the log).
  const reportLog = command === 'check' && level === undefined ? new ReportLog() : undefined;
  const logger = reportLog?.logger ?? createLogger(level ?? (command === 'start' ? 'info' : 'warn'));
  // Said once, by the serving host: every command would otherwise begin its stderr with it at debug.
  if (command === 'start') logger.debug(describeCompileCache(compileCache));
  // Plugins run in this process: their faults (an exception from a timer, a
  // promise rejected and forgotten, a call to process.exit) are theirs, not
  // the host's. Installed before any plugin code can run.
  installFaultAttribution(logger);
  // And what they print goes to the log as theirs: stdout is the stdio transport's.
  markPluginOutput();
  const common = { cwd: process.cwd(), logger, ...(configPath ? { configPath } : {}) };
  // Each command is loaded when it runs: the SDK behind `start` takes most of
  // a second to import, which `--help` and `reload` need not pay.
  switch (command) {
    case 'check':
      return (await import('./commands/check.js')).check({
        ...common,
        ...(reportLog && { reportLog }),
        ...sampleOptions(values.options),
        allowWithheld: values['allow-withheld'] === true,
      });
    case 'init':
      return values.plugin === undefined
        ? (await import('./commands/init.js')).init(common)
        : (await import('./commands/init-plugin.js')).initPlugin({ cwd: common.cwd, name: values.plugin });
    case 'add':
      return (await import('./commands/add.js')).add({ ...common, ...addFlags(positionals, values) });
    case 'list':
      return (await import('./commands/list.js')).list({ ...common, json: values.json === true });
    case 'reload':
      return values.cluster
        ? (await import('./commands/cluster.js')).reloadCluster(common)
        : (await import('./commands/reload.js')).reload({
            ...common,
            ...(values.plugin !== undefined && { plugin: values.plugin }),
          });
    case 'status':
      return values.cluster
        ? (await import('./commands/cluster.js')).clusterStatus({ ...common, json: values.json === true })
        : (await import('./commands/status.js')).status({ ...common, json: values.json === true });
    case 'pin':
      return (await import('./commands/pin.js')).pin({ ...common, diff: values.diff === true });
    case 'access':
      if (positionals.length !== 1 || positionals[0] !== 'explain')
        throw new UsageError('access takes one subcommand: explain (mcp-host access explain --sub alice)');
      return (await import('./commands/access-explain.js')).accessExplain({
        ...common,
        who: {
          ...(values.sub !== undefined && { sub: values.sub }),
          ...(values['client-id'] !== undefined && { clientId: values['client-id'] }),
          ...(values.scope !== undefined && { scope: values.scope }),
          ...(values.group && { groups: values.group }),
          ...(values.role && { roles: values.role }),
          ...(values.token !== undefined && { token: values.token }),
          ...(values.stdio && { stdio: true }),
        },
        ...(values.server !== undefined && { server: values.server }),
      });
    default:
      return (await import('./commands/start.js')).start({ ...common, ...serveFlags(values) });
  }
}

/** The commands that take one config: as `--config PATH`, as a positional `CONFIG`, or from MCP_HOST_CONFIG. */
const CONFIG_COMMANDS = ['start', 'check', 'list', 'reload', 'status', 'pin'];

/**
 * The config a command names, if any. A positional path is the same as
 * `--config`: a client with a `--config` option of its own (the MCP
 * Inspector's CLI) takes that flag for itself, but passes `start FILE` on.
 * MCP_HOST_CONFIG comes last, so that a flag or an argument still wins over
 * a variable left in the environment.
 */
function configPathOf(command: string, positionals: string[], flag: string | undefined): string | undefined {
  const takesConfig = CONFIG_COMMANDS.includes(command);
  if (takesConfig && positionals.length > 1)
    throw new UsageError(`${command} takes at most one CONFIG, got ${positionals.length}: ${positionals.join(' ')}`);
  if (!takesConfig && command !== 'add' && command !== 'access' && positionals.length > 0)
    throw new UsageError(`${command} takes no argument, got: ${positionals.join(' ')}`);
  const positional = takesConfig ? positionals[0] : undefined;
  if (positional !== undefined && flag !== undefined)
    throw new UsageError(`the config is named twice: ${positional} and --config ${flag}; give one`);
  return flag ?? positional ?? (process.env.MCP_HOST_CONFIG || undefined);
}

/** `add PACKAGE [--prefix P | --flat] [--arg VALUE]… [--env NAME[=VALUE]]… [--bin NAME] [--allow-scripts]`. */
function addFlags(
  positionals: string[],
  values: { prefix?: string; flat?: boolean; arg?: string[]; env?: string[]; bin?: string; 'allow-scripts'?: boolean },
) {
  if (positionals.length !== 1)
    throw new UsageError('add takes one PACKAGE (a registry name, a directory or a tarball)');
  if (values.prefix !== undefined && values.flat) throw new UsageError('--prefix and --flat exclude each other');
  return {
    spec: positionals[0]!,
    ...(values.prefix !== undefined && { prefix: values.prefix }),
    ...(values.flat && { flat: true }),
    ...(values.arg && { args: values.arg }),
    ...(values.env && { env: values.env }),
    ...(values.bin !== undefined && { bin: values.bin }),
    ...(values['allow-scripts'] && { allowScripts: true }),
  };
}

/** `check --options JSON`: the options a plugin checked in its own directory is created with. */
function sampleOptions(json: string | undefined): { sampleOptions?: Record<string, unknown> } {
  if (json === undefined) return {};
  let options: unknown;
  try {
    options = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`--options: ${describeThrown(error)}`);
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new UsageError('--options takes a JSON object, e.g. --options \'{"units":"metric"}\'');
  }
  return { sampleOptions: options as Record<string, unknown> };
}

/** `--stdio` and `--http [HOST:]PORT`, checked here so a bad address is a usage error (exit 2). */
function serveFlags(values: {
  stdio?: boolean;
  http?: string;
  server?: string;
}): Pick<StartOptions, 'stdio' | 'http' | 'server'> {
  if (values.stdio && values.http !== undefined) throw new UsageError('--stdio and --http exclude each other');
  if (values.server !== undefined && values.http !== undefined)
    throw new UsageError(
      "--server names the stdio client's virtual server; over HTTP a client picks one by its path, /mcp/NAME",
    );
  if (values.server !== undefined) return { ...(values.stdio && { stdio: true }), server: values.server };
  if (values.http === undefined) return values.stdio ? { stdio: true } : {};
  try {
    return { http: parseListenAddress(values.http) };
  } catch (error) {
    throw new UsageError(describeThrown(error));
  }
}

/** Run the command `argv` names, and exit with its status: its own, a plugin's 'exit' listener cannot change it (fault-attribution.ts). */
export function runCommandLine(argv: string[], compileCache: CompileCacheState): void {
  main(argv, compileCache).then(
    (code) => exitHost(code),
    (error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`mcp-host: ${error.message}\n\n${USAGE.main}\n`);
        exitHost(2);
      }
      if (error instanceof ProblemsError) {
        process.stderr.write(
          `mcp-host: ${error.problems.length === 1 ? 'a problem' : `${error.problems.length} problems`}:\n`,
        );
        for (const problem of error.problems) process.stderr.write(`- ${formatProblem(problem)}\n`);
      } else if (error instanceof HostError) {
        process.stderr.write(`mcp-host: ${error.message}\n`);
      } else {
        process.stderr.write(
          `mcp-host: unexpected failure: ${error instanceof Error ? error.stack : describeThrown(error)}\n`,
        );
      }
      exitHost(1);
    },
  );
}
