/**
 * Which module system Node gives a `.js` file, and which one its source is
 * written for. Node 20 decides by the nearest package.json's "type" alone
 * (syntax detection is behind a flag), so an `export default` config in a
 * project that `npm init` made ("type": "commonjs") fails to load though the
 * file is fine. The config loader and `mcp-host init` ask here instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { compileFunction } from 'node:vm';

/** The "type" of the nearest package.json up from `dir`, as Node reads it: anything but "module" is CommonJS. */
export function nearestPackageType(dir: string): 'module' | 'commonjs' {
  const file = nearestPackageJson(dir);
  if (file === undefined) return 'commonjs';
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown }).type === 'module' ? 'module' : 'commonjs';
  } catch {
    return 'commonjs'; // Node itself refuses to load from a broken package.json; the loader says so
  }
}

/** The nearest package.json up from `dir`, if there is one. */
export function nearestPackageJson(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const file = join(at, 'package.json');
    if (existsSync(file)) return file;
    if (dirname(at) === at) return undefined;
  }
}

/** Whether Node loads `file` as an ES module: a `.mjs`, or a `.js` whose package says "type": "module". */
export function loadsAsEsModule(file: string): boolean {
  const extension = extname(file);
  if (extension === '.mjs') return true;
  return extension === '.js' && nearestPackageType(dirname(file)) === 'module';
}

/** What CommonJS cannot compile and only an ES module can: import/export statements, import.meta, top-level await. */
const MODULE_ONLY_SYNTAX =
  /Unexpected token 'export'|Cannot use import statement outside a module|Cannot use 'import\.meta' outside a module|await is only valid in async functions and the top level bodies of modules/;

/**
 * True when `source` is an ES module that CommonJS cannot compile. It is
 * compiled the way Node's CommonJS loader compiles a file (a function of
 * exports, require, module, __filename, __dirname), never run.
 */
export function needsModuleSyntax(source: string): boolean {
  try {
    compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname']);
    return false;
  } catch (error) {
    return isModuleOnlySyntaxError(error);
  }
}

/** The SyntaxError CommonJS throws at ES module syntax. */
export function isModuleOnlySyntaxError(error: unknown): boolean {
  return error instanceof SyntaxError && MODULE_ONLY_SYNTAX.test(error.message);
}
