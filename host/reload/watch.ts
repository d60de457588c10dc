import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../log.js';

/**
 * Watches files by watching their directories, never the files themselves.
 * Editors (vim, many IDEs) and npm write by creating a new file or
 * directory and renaming it over the old one; a watch on the old inode
 * would then go silent, while the directory sees every rename.
 *
 * `watchPaths` replaces the whole watched set, so a caller re-arms after
 * anything that may have replaced a watched directory (a reload after
 * `npm install`). It opens the new watches before closing the old ones:
 * the kernel keeps one watch per directory for the process, so a directory
 * watched before and after keeps its watch, and a change already queued on
 * it (an edit saved while the host re-arms) is still delivered. Closing
 * first would drop the watch, and that change with it.
 */
export class PathWatch {
  private readonly watchers = new Map<string, FSWatcher>();

  constructor(
    private readonly onChange: (path: string) => void,
    private readonly logger: Logger,
  ) {}

  /** Watch exactly these paths (files or directories) from now on. */
  watchPaths(paths: Iterable<string>): void {
    const names = new Map<string, Set<string>>();
    for (const path of paths) {
      const dir = dirname(path);
      names.set(dir, (names.get(dir) ?? new Set()).add(basename(path)));
    }
    const previous = [...this.watchers.values()];
    this.watchers.clear();
    for (const [dir, watched] of names) this.watchDirectory(dir, watched);
    for (const watcher of previous) watcher.close();
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private watchDirectory(dir: string, watched: ReadonlySet<string>): void {
    let watcher: FSWatcher;
    try {
      // Not persistent: watching never keeps the host alive by itself.
      watcher = watch(dir, { persistent: false }, (_event, name) => {
        // Some platforms omit the name; then any change may be ours.
        if (name === null) watched.forEach((each) => this.onChange(join(dir, each)));
        else if (watched.has(name)) this.onChange(join(dir, name));
      });
    } catch (error) {
      this.logger.debug({ err: error }, `cannot watch ${dir}: changes there need SIGHUP or mcp-host reload`);
      return;
    }
    watcher.on('error', (error) => {
      // The directory itself went away (a package removed); the next re-arm watches what replaced it.
      this.logger.debug({ err: error }, `stopped watching ${dir}`);
      watcher.close();
      if (this.watchers.get(dir) === watcher) this.watchers.delete(dir);
    });
    this.watchers.set(dir, watcher);
  }
}
