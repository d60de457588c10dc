/**
 * The recorded catalogue of real tools (test/fixtures/tool-catalogue/: each
 * file one npm MCP server package's `tools/list`, recorded by
 * bench/record-tool-catalogue.ts) and the natural-language tasks over it
 * (`tasks.json`), as the discovery quality test and `npm run bench` read
 * them: each package mounted under a prefix of its own, names composed and
 * shortened as a search-mode host serves them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { qualify, shortenName } from '../../host/catalogue/names.js';
import type { SearchableTool } from '../../host/catalogue/tool-search.js';
import { REPO_ROOT } from './packages.js';

export const CATALOGUE_DIR = join(REPO_ROOT, 'test/fixtures/tool-catalogue');

/** One recorded package: what its `tools/list` gave. */
export interface RecordedServer {
  package: string;
  version: string;
  /** How the server was started to record it (placeholders included). */
  command: string[];
  tools: { name: string; [key: string]: unknown }[];
}

/** A task as a user would ask it, and the tool (a package's own name for it) that serves it. */
export interface CatalogueTask {
  task: string;
  package: string;
  tool: string;
  /** Other tools that serve the task as well (three weather servers each forecast the rain): finding one is right. */
  also?: { package: string; tool: string }[];
  /** Written after the ranking was tuned, and not tuned on: the fairer measure. */
  heldOut?: boolean;
}

/** The task sets beside the catalogue: each a JSON list of tasks, none a recorded server. */
const TASK_FILES = ['tasks.json', 'paraphrases.json'];

/** A search-mode host's name limit. */
const MAX_NAME_LENGTH = 64;

export function recordedServers(): RecordedServer[] {
  return readdirSync(CATALOGUE_DIR)
    .filter((file) => file.endsWith('.json') && !TASK_FILES.includes(file))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(CATALOGUE_DIR, file), 'utf8')) as RecordedServer);
}

/**
 * The tasks of one set: `tasks.json`, written by developers about developer tools (a tool's words are often
 * the task's), or `paraphrases.json`, everyday requests as people say them to an assistant, in none of the
 * right tool's words ("will it rain in Paris tomorrow" for a weather forecast).
 */
export function catalogueTasks(set: 'tasks' | 'paraphrases' = 'tasks'): CatalogueTask[] {
  return JSON.parse(readFileSync(join(CATALOGUE_DIR, `${set}.json`), 'utf8')) as CatalogueTask[];
}

/**
 * The prefix each package is mounted under: its name without the words
 * every MCP package has (`server-`, `-mcp`), else its scope; a name taken
 * already gets its scope in front.
 */
export function prefixes(servers: readonly RecordedServer[]): Map<string, string> {
  const taken = new Map<string, string>();
  for (const { package: name } of servers) {
    const [scope, base] = name.startsWith('@') ? (name.slice(1).split('/') as [string, string]) : ['', name];
    const stripped = base
      .split('-')
      .filter((word) => !['mcp', 'server'].includes(word))
      .join('-')
      .replace(/[^A-Za-z0-9_-]/g, '_');
    let prefix = stripped || scope;
    if ([...taken.values()].includes(prefix)) prefix = `${scope}-${prefix}`;
    taken.set(name, prefix);
  }
  return taken;
}

/**
 * Every recorded tool as a search-mode host serves it; with `copies` above 1
 * the whole catalogue again under numbered prefixes (`github2.create_issue`),
 * for a catalogue of 10,000 tools made of real definitions.
 */
export function catalogueTools(servers: readonly RecordedServer[], copies = 1): SearchableTool[] {
  const prefixOf = prefixes(servers);
  const tools: SearchableTool[] = [];
  for (let copy = 1; copy <= copies; copy++) {
    for (const server of servers) {
      const mount = `${prefixOf.get(server.package)}${copy === 1 ? '' : copy}`;
      for (const tool of server.tools) {
        const name = shortenName(qualify(mount, tool.name, '.'), MAX_NAME_LENGTH);
        tools.push({ name, item: tool, served: { ...tool, name }, mount });
      }
    }
  }
  return tools;
}

/** The served name of a task's tool in the first copy. */
export function servedNameOf(servers: readonly RecordedServer[], task: { package: string; tool: string }): string {
  return shortenName(qualify(prefixes(servers).get(task.package)!, task.tool, '.'), MAX_NAME_LENGTH);
}

/** The served names of every tool that serves a task: its own, and those it names as `also`. */
export function rightToolsOf(servers: readonly RecordedServer[], task: CatalogueTask): string[] {
  return [task, ...(task.also ?? [])].map((tool) => servedNameOf(servers, tool));
}
