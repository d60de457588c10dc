import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the host's running code is, and the package it belongs to.
 *
 * The same source is built twice: tsc's build, one file per module under
 * dist/host (the package's exports, and the modules tests import), and the
 * bundle the bin runs, a few files directly in dist/bundle
 * (scripts/bundle.js). This module is at the top of either, so its folder is
 * the running code's, and the package is two folders up. A module deeper in
 * dist/host that found a path from its own location ("../.." from
 * mounts/isolation) would name another folder once bundled: the package's
 * root, which an isolated plugin must never be granted.
 */
export const RUNNING_CODE_DIR = dirname(fileURLToPath(import.meta.url));

/** The host's installed package: where its package.json is. */
export const PACKAGE_ROOT = dirname(dirname(RUNNING_CODE_DIR));

/** The bin, as package.json names it: the bundle's. */
export const BIN = join(PACKAGE_ROOT, 'dist/bundle/cli.js');

/** tsc's build of the host, where the package's exports (`mcp-host/plugin` among them) point. */
export const COMPILED_CODE_DIR = join(PACKAGE_ROOT, 'dist/host');
