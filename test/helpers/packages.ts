/**
 * Real plugin packages and configs written to a temporary workspace, for
 * tests that resolve, check, import or serve them.
 *
 * A workspace is a directory under `<repo>/.tmp/` (gitignored), so Node's
 * resolution from it reaches the repo's node_modules: a test package can
 * import `@modelcontextprotocol/server`, `@modelcontextprotocol/sdk` (v1) and
 * `zod` without installing anything. It has its own package.json
 * (`"type": "module"`), which also stops the config search there, so the
 * repo's own mcp-host.config.js is never found by accident.
 *
 *   const ws = makeWorkspace(t); // removed when the test t ends
 *   ws.writePackage('node_modules/@acme/mcp-weather', { name: '@acme/mcp-weather', … }, { 'index.js': '…' }); // by name
 *   ws.writePackage('plugins/clock', { name: 'clock', … }, { 'index.js': '…' });  // as './plugins/clock'
 *   const configFile = ws.writeConfig({ plugins: [{ package: '@acme/mcp-weather', prefix: 'weather' }] });
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Workspace {
  /** The workspace's absolute directory. */
  dir: string;
  /**
   * Write a package at `relDir` (under `node_modules/<name>` to be resolved by
   * name): its package.json, then `files` (paths relative to the package).
   * Returns the package's absolute directory.
   */
  writePackage(relDir: string, packageJson: Record<string, unknown>, files?: Record<string, string>): string;
  /**
   * Write the config: an object becomes `export default <json>;`, a string is
   * written as is. Returns the config file's absolute path.
   */
  writeConfig(config: string | Record<string, unknown>, fileName?: string): string;
  /** Write any file, relative to the workspace; returns its absolute path. */
  writeFile(relPath: string, content: string): string;
  cleanup(): void;
}

/** The repository's root: the nearest directory up from here whose package.json is named "mcp-host". */
export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

/** A new workspace; given a tap test, it is removed when that test ends. */
export function makeWorkspace(test?: { teardown(fn: () => void): void }): Workspace {
  const tmpRoot = join(REPO_ROOT, '.tmp');
  mkdirSync(tmpRoot, { recursive: true });
  const dir = mkdtempSync(join(tmpRoot, 'ws-'));
  const writeFile = (relPath: string, content: string): string => {
    const file = join(dir, relPath);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    return file;
  };
  writeFile('package.json', JSON.stringify({ name: 'mcp-host-test-workspace', private: true, type: 'module' }));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  test?.teardown(cleanup);
  return {
    dir,
    writeFile,
    writePackage(relDir, packageJson, files = {}) {
      writeFile(join(relDir, 'package.json'), JSON.stringify(packageJson, null, 2));
      for (const [relPath, content] of Object.entries(files)) writeFile(join(relDir, relPath), content);
      return join(dir, relDir);
    },
    writeConfig(config, fileName = 'mcp-host.config.js') {
      const source = typeof config === 'string' ? config : `export default ${JSON.stringify(config, null, 2)};\n`;
      return writeFile(fileName, source);
    },
    cleanup,
  };
}

/** The version in the repository's package.json: what the host must report as its own. */
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

function findRepoRoot(from: string): string {
  for (let dir = from; dirname(dir) !== dir; dir = dirname(dir)) {
    const packageJson = join(dir, 'package.json');
    if (
      existsSync(packageJson) &&
      (JSON.parse(readFileSync(packageJson, 'utf8')) as { name?: string }).name === 'mcp-host'
    ) {
      return dir;
    }
  }
  throw new Error(`no mcp-host package.json above ${from}`);
}

/** Where a host and `mcp-host reload` meet: a private runtime directory of the workspace's own. */
export function controlEnv(ws: Workspace): NodeJS.ProcessEnv {
  const runtimeDir = join(ws.dir, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  return { ...process.env, XDG_RUNTIME_DIR: runtimeDir };
}
