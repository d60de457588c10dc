#!/usr/bin/env node
/**
 * The `mcp-host` bin. The compile cache is turned on before anything else is
 * loaded (compile-cache.ts), so the command line is imported only once it is:
 * a module's code is compiled when it is loaded, before the first of its
 * importer's lines runs.
 */
import { startCompileCache } from './compile-cache.js';

const compileCache = startCompileCache();
const { runCommandLine } = await import('./command-line.js');
runCommandLine(process.argv.slice(2), compileCache);
