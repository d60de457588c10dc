import { basename, dirname, join, relative } from 'node:path';
import type { Logger } from '../log.js';
import type { HostRuntime } from '../runtime.js';
import type { Reloader } from './reloader.js';
import { PathWatch } from './watch.js';
import { lockFileOf } from '../pins/lock.js';
import { isEditedInPlace, sourceFiles } from '../loader/code-identity.js';

/**
 * What makes a running host reload by itself: a change to its config file,
 * to an installed plugin, or to a file of a plugin edited in place (watched, debounced by `reload.debounceMs` so a
 * burst of writes is one reload), and SIGHUP (at once). `mcp-host reload`
 * arrives through the control channel instead.
 */
export class ReloadTriggers {
  private readonly watch: PathWatch;
  private timer: NodeJS.Timeout | undefined;
  private readonly changed = new Set<string>();
  private closed = false;
  private readonly onSighup = () => void this.reloader.reload('SIGHUP');

  constructor(
    private readonly runtime: HostRuntime,
    private readonly reloader: Reloader,
    private readonly configFile: string,
    private readonly logger: Logger,
  ) {
    this.watch = new PathWatch((path) => this.onChange(path), logger);
    // Every reload may have replaced a watched directory or changed the set
    // of plugins (or `reload.watch` itself), whatever triggered it.
    reloader.onSettled(() => this.rearm());
  }

  start(): void {
    process.on('SIGHUP', this.onSighup);
    this.rearm();
  }

  close(): void {
    this.closed = true;
    process.off('SIGHUP', this.onSighup);
    clearTimeout(this.timer);
    this.watch.close();
  }

  private rearm(): void {
    if (this.closed) return;
    const { config } = this.runtime.current;
    if (!config.reload.watch) {
      this.watch.close();
      return;
    }
    this.watch.watchPaths(this.watchedPaths());
  }

  /**
   * The config file and its lock (`mcp-host pin` re-pins a running host);
   * every mounted package's package.json (an in-place
   * edit) and its directory (npm replaces a package's directory whole);
   * and each node_modules' lockfile, which npm writes last: after an
   * install that took longer than the debounce, it triggers the reload
   * that sees the finished package, and after `npm install` of a plugin
   * the config already named, it retries the reload that failed to find it.
   */
  private watchedPaths(): Set<string> {
    const { config, mounts } = this.runtime.current;
    const paths = new Set([
      this.configFile,
      lockFileOf(this.configFile),
      join(config.dir, 'node_modules', '.package-lock.json'),
    ]);
    for (const { spec } of mounts) {
      if (spec.kind === 'remote' || spec.packageDir === undefined) continue;
      paths.add(join(spec.packageDir, 'package.json'));
      paths.add(spec.packageDir);
      const modules = nodeModulesOf(spec.packageDir);
      if (modules) paths.add(join(modules, '.package-lock.json'));
      if (isEditedInPlace(spec.packageDir)) for (const file of sourceFiles(spec.packageDir) ?? []) paths.add(file);
    }
    return paths;
  }

  private onChange(path: string): void {
    if (this.closed) return;
    this.changed.add(path);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const dir = this.runtime.current.config.dir;
      const what = [...this.changed].map((each) => relative(dir, each) || basename(each)).join(', ');
      this.changed.clear();
      void this.reloader.reload(`changed on disk: ${what}`);
    }, this.runtime.current.config.reload.debounceMs);
    this.logger.debug(`${path} changed: reloading in ${this.runtime.current.config.reload.debounceMs} ms`);
  }
}

/** The node_modules directory a package is installed in, if it is installed in one. */
function nodeModulesOf(packageDir: string): string | undefined {
  for (let dir = dirname(packageDir); dirname(dir) !== dir; dir = dirname(dir)) {
    if (basename(dir) === 'node_modules') return dir;
  }
  return undefined;
}
