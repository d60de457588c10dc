import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { EnvironmentReference, withPluginEntry, type NewEntry } from '../config/config-edit.js';
import { findConfigFile, loadConfig, loadConfigExport } from '../config/load.js';
import { prefixProblem, suggestPrefix } from '../config/prefix.js';
import { configWhere } from '../config/problem-wording.js';
import type { Separator } from '../config/types.js';
import { inspectConfigValue } from '../catalogue/compose.js';
import { ALL_LIST_KINDS } from '../vocabulary/list-kinds.js';
import { describeThrown, formatProblem, HostError, type Problem } from '../errors.js';
import type { Logger } from '../log.js';
import { resolvePackage } from '../loader/resolve.js';
import { isPlainObject } from '../plain-object.js';
import { HostRuntime } from '../runtime.js';
import { formatCatalogue } from './catalogue-report.js';
import { recordServerStderr } from './server-stderr.js';
import { packagesWithInstallScripts, runInstallScripts } from './install-scripts.js';

export interface AddOptions {
  /** What to install: a registry name (with a version or tag), a local package directory, or a tarball. */
  spec: string;
  prefix?: string;
  flat?: boolean;
  /** `--bin`: which of a server package's bins to run. */
  bin?: string;
  /** `--arg`: the arguments a server package's bin is run with, in order. */
  args?: string[];
  /** `--env`: `NAME` (read from the host's environment when the config loads) or `NAME=VALUE`. */
  env?: string[];
  /** Run the install scripts of what was installed once the package passed its check (they are off until then). */
  allowScripts?: boolean;
  configPath?: string;
  cwd: string;
  logger: Logger;
}

/**
 * `mcp-host add PACKAGE`: `npm install` it next to the config, check the
 * config as it would be with the package's entry added (everything `check`
 * does: package.json checks, import, create, preflight), and only then
 * write that entry into the config file. A refusal leaves the config
 * byte-identical and says how to undo the install. npm installs with
 * scripts off: install scripts are the package's code, run before anything
 * checked it (install-scripts.ts).
 */
export async function add(options: AddOptions): Promise<number> {
  const configFile = await findConfigFile(options).catch((error: unknown) => {
    throw error instanceof HostError && !options.configPath
      ? new HostError({
          where: error.where,
          what: error.what,
          fix: 'run mcp-host init first, or name the config with --config PATH.',
        })
      : error;
  });
  if (!existsSync(configFile)) {
    throw new HostError({
      where: configFile,
      what: 'the config file does not exist.',
      fix: 'run mcp-host init, or correct --config.',
    });
  }
  const dir = dirname(configFile);
  const original = readFileSync(configFile, 'utf8');
  // A config that cannot load could not take the entry either: say so before installing anything.
  const { config: raw } = await loadConfigExport({ configPath: configFile, cwd: options.cwd });
  if (!isPlainObject(raw) || (raw.plugins !== undefined && !Array.isArray(raw.plugins))) {
    throw new HostError({
      where: configWhere(configFile),
      what: 'the config is not an object with a plugins array, so no entry can be added to it.',
      fix: 'run mcp-host check and correct what it shows.',
    });
  }

  // What the flags ask is judged before anything is installed.
  const separator = ['.', '_', '__'].includes(raw.separator as string) ? (raw.separator as Separator) : '.';
  const index = ((raw.plugins as unknown[] | undefined) ?? []).length;
  if (options.prefix !== undefined) refuseUnusablePrefix(options.prefix, separator, raw.plugins, configFile, index);
  const env = environmentOf(options.env ?? [], configFile);

  const spec = isPathSpec(options.spec) ? resolve(options.cwd, options.spec) : options.spec;
  const before = dependenciesOf(dir);
  const scriptedBefore = packagesWithInstallScripts(dir);
  process.stderr.write(`mcp-host add: npm install --ignore-scripts ${options.spec} in ${dir}\n`);
  npmInstall(spec, dir);
  const after = dependenciesOf(dir);
  const scripted = [...packagesWithInstallScripts(dir)].filter((name) => !scriptedBefore.has(name));
  const rebuild = `npm rebuild ${scripted.join(' ')}`;
  const name = installedName(spec, dir, before, after);
  const installedNow = before[name] !== after[name];
  const undo = installedNow ? ` To undo the install: npm uninstall ${name} (in ${dir}).` : '';

  const entry: NewEntry = {
    ...(await entryFor(name, dir, configFile, options, separator)),
    ...(options.bin !== undefined && { bin: options.bin }),
    ...(options.args?.length && { args: options.args }),
    ...(env && { env }),
  };
  const plugins = [...((raw.plugins as unknown[] | undefined) ?? []), { ...entry, ...(env && { env: valuesOf(env) }) }];
  const runtime = new HostRuntime(options.logger);
  const stderr = recordServerStderr(options.logger);
  const inspection = await inspectConfigValue({ ...raw, plugins }, configFile, {
    logger: stderr.logger,
    events: runtime.events,
  });
  try {
    // Problems are placed by entry path or by plugin name; the config's other problems are not this package's.
    const isTheNewEntry = (problem: Problem) =>
      [`plugins[${index}]`, `"${name}"`, `(${name})`].some((mark) => `${problem.where} ${problem.what}`.includes(mark));
    const refusals = inspection.problems.filter(isTheNewEntry);
    const names = ['prefix' in entry ? entry.prefix : undefined, name];
    const added = inspection.generation?.mounts.find((mount) => names.includes(mount.name));
    const serves = added ? ALL_LIST_KINDS.some((kind) => inspection.generation!.served(added, kind).length > 0) : false;
    showServerStderr(stderr.of(names), { refused: refusals.length > 0, serves, options, configFile, name });
    if (refusals.length > 0) {
      process.stderr.write(
        `mcp-host add: ${name} refused; ${configFile} is unchanged.${undo}\n` +
          refusals.map((problem) => `- ${formatProblem(problem)}\n`).join('') +
          (scripted.length > 0
            ? `The install scripts of ${scripted.join(', ')} were not run (add runs none before the check): if the package needs them to load and you trust it, run ${rebuild} in ${dir}, then mcp-host check.\n`
            : ''),
      );
      return 1;
    }
    const edited = withPluginEntry(configFile, original, entry);
    writeFileSync(configFile, edited);
    try {
      await loadConfig({ configPath: configFile, cwd: options.cwd });
    } catch (error) {
      // The edit must not be what breaks a config: put the original back.
      writeFileSync(configFile, original);
      throw new HostError({
        where: configFile,
        what: `adding the entry made the config fail to load (${describeThrown(error)}); the file is restored unchanged.`,
        fix: `add ${JSON.stringify(entry)} to its plugins by hand.${undo}`,
      });
    }
    const others = inspection.problems.length - refusals.length;
    process.stdout.write(
      `added ${JSON.stringify(entry)} to ${configFile}\n` +
        (inspection.generation ? `${formatCatalogue(inspection.generation)}\n` : '') +
        (others > 0
          ? `the config has ${others} other problem${others === 1 ? '' : 's'}: mcp-host check lists them\n`
          : ''),
    );
    if (scripted.length === 0) return 0;
    if (!options.allowScripts) {
      process.stdout.write(
        `the install scripts of ${scripted.join(', ')} were not run: if you trust them, run ${rebuild} in ${dir}, or add with --allow-scripts.\n`,
      );
      return 0;
    }
    process.stderr.write(`mcp-host add: ${name} passed its check; ${rebuild} runs the install scripts\n`);
    runInstallScripts(scripted, dir);
    process.stdout.write(`ran the install scripts of ${scripted.join(', ')}\n`);
    return 0;
  } finally {
    await Promise.allSettled((inspection.generation?.mounts ?? []).map((mount) => mount.close()));
  }
}

/**
 * A stdio server that needs arguments (a directory, a key) often says so only
 * on its stderr, and may start anyway: what it wrote is shown when it was
 * refused, serves nothing, or printed its usage.
 */
function showServerStderr(
  said: string[],
  how: { refused: boolean; serves: boolean; options: AddOptions; configFile: string; name: string },
): void {
  if (said.length === 0 || (!how.refused && how.serves && !said.some((line) => /\busage\b/i.test(line)))) return;
  process.stderr.write(
    `mcp-host add: ${how.name} wrote on its stderr while it was checked:\n${said.map((line) => `  ${line}\n`).join('')}` +
      (how.refused
        ? `If it needs arguments (a directory, a key), give them: mcp-host add ${how.options.spec} --arg VALUE (once per argument).\n`
        : `If it needs arguments (a directory, a key), put them in its entry's args in ${how.configFile} (args: ['VALUE']).\n`),
  );
}

/** `--prefix P` refused before the install, as the config would refuse it after. */
function refuseUnusablePrefix(
  prefix: string,
  separator: Separator,
  plugins: unknown,
  configFile: string,
  index: number,
): void {
  const where = `${configWhere(configFile)}: plugins[${index}].prefix (--prefix)`;
  const problem = prefixProblem(prefix, separator, where, prefix);
  if (problem) throw new HostError(problem);
  const taken = ((plugins as unknown[] | undefined) ?? []).findIndex(
    (entry) => isPlainObject(entry) && entry.prefix === prefix,
  );
  if (taken !== -1) {
    throw new HostError({
      where,
      what: `the prefix "${prefix}" is already used by plugins[${taken}]; a prefix is used once.`,
      fix: `choose another --prefix, e.g. "${prefix}2".`,
    });
  }
}

/**
 * `--env NAME` reads NAME from the host's environment whenever the config
 * loads (a secret stays out of the file); `--env NAME=VALUE` writes the value.
 */
function environmentOf(
  assignments: string[],
  configFile: string,
): Record<string, string | EnvironmentReference> | undefined {
  if (assignments.length === 0) return undefined;
  const env: Record<string, string | EnvironmentReference> = {};
  for (const assignment of assignments) {
    const [, variable, value] = /^([^=]*)(?:=(.*))?$/s.exec(assignment)!;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable!)) {
      throw new HostError({
        where: `--env ${assignment}`,
        what: `"${variable}" is not an environment variable name (letters, digits and "_", not first a digit).`,
        fix: "write --env NAME to pass the host's own NAME, or --env NAME=VALUE.",
      });
    }
    if (value === undefined && !/\.[cm]?[jt]s$/.test(configFile)) {
      throw new HostError({
        where: `--env ${variable}`,
        what: `${configFile} is not JavaScript or TypeScript, so it cannot read ${variable} from the host's environment when it loads.`,
        fix: `give the value (--env ${variable}=VALUE; it is then written into the file), or use an mcp-host.config.js.`,
      });
    }
    if (value === undefined && process.env[variable!] === undefined) {
      throw new HostError({
        where: `--env ${variable}`,
        what: `${variable} is not set in this environment, so the server would get nothing for it (${configFile} would read process.env.${variable}).`,
        fix: `set it for mcp-host add and for the host (export ${variable}=…), or give the value: --env ${variable}=VALUE.`,
      });
    }
    env[variable!] = value ?? new EnvironmentReference(variable!);
  }
  return env;
}

/** The environment as the config will hand it to the server when it loads. */
function valuesOf(env: Record<string, string | EnvironmentReference>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [
      name,
      value instanceof EnvironmentReference ? process.env[value.name]! : value,
    ]),
  );
}

/** A local directory or tarball, as npm tells one from a registry name: a path that starts like one, or an archive. */
function isPathSpec(spec: string): boolean {
  return /^(\.{1,2}[\\/]|\/)/.test(spec) || /\.(tgz|tar\.gz)$/.test(spec);
}

function npmInstall(spec: string, dir: string): void {
  // npm's own output (progress, warnings) is the user's to see, on stderr: stdout is this command's answer.
  const run = spawnSync('npm', ['install', spec, '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: dir,
    stdio: ['ignore', 2, 2],
    shell: process.platform === 'win32',
  });
  if (run.error) {
    throw new HostError({
      where: dir,
      what: `npm could not be run: ${describeThrown(run.error)}.`,
      fix: 'install npm (it comes with Node.js) and make sure it is on PATH.',
    });
  }
  if (run.status !== 0) {
    throw new HostError({
      where: dir,
      what: `npm install ${spec} failed (exit ${run.status}); npm's reason is above. The config is unchanged.`,
      fix: 'correct the package name, version, path or tarball, or the network problem npm names.',
    });
  }
}

/** Every dependency in the package.json next to the config, as npm recorded it. */
function dependenciesOf(dir: string): Record<string, string> {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return {};
  const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string> | undefined>;
  return { ...json.optionalDependencies, ...json.devDependencies, ...json.dependencies };
}

/** The name npm installed `spec` under: the dependency it added or changed, or the one that points at `spec`. */
function installedName(
  spec: string,
  dir: string,
  before: Record<string, string>,
  after: Record<string, string>,
): string {
  const changed = Object.keys(after).filter((name) => before[name] !== after[name]);
  if (changed.length === 1) return changed[0]!;
  const local = isPathSpec(spec) ? `file:${relative(dir, spec)}` : undefined;
  const named = local
    ? Object.keys(after).find((name) => after[name] === local)
    : /^(@[^/@]+\/[^@]+|[^@]+)/.exec(spec)?.[1];
  if (named && after[named] !== undefined) return named;
  throw new HostError({
    where: join(dir, 'package.json'),
    what: `npm install ${spec} succeeded, but which dependency it installed cannot be told from package.json.`,
    fix: 'add the entry by hand: { package: "<the installed name>", prefix: "…" }.',
  });
}

/**
 * The entry as the flags ask. With neither --prefix nor --flat, the
 * package's manifest prefix is used, or, for a package that declares none (an
 * MCP server with a bin), one made from its name, as `check` would suggest.
 */
async function entryFor(
  name: string,
  dir: string,
  configFile: string,
  options: AddOptions,
  separator: Separator,
): Promise<NewEntry> {
  if (options.flat) return { package: name, flat: true };
  if (options.prefix !== undefined) return { package: name, prefix: options.prefix };
  const pkg = resolvePackage(name, dir, configWhere(configFile));
  const manifest = pkg.packageJson['mcp-host'];
  if (isPlainObject(manifest) && typeof manifest.prefix === 'string') return { package: name };
  return { package: name, prefix: suggestPrefix(name, separator) };
}
