// `npm test`'s check that host/ keeps its shape (DESIGN.md "Layers",
// docs/architecture.md): data flows one way down the layers below, so no
// folder imports from a folder above it and no files import each other in a
// circle. It reads the sources' import graph, type-only imports included: an
// interface a lower layer takes from a higher one ties the two together as
// surely as a call does, though the compiler erases it.
//
// Usage: node scripts/check-layers.js [host folder, default host]
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from '@babel/parser';

/**
 * The layers, top first: each may import its own and those below it. A name
 * is a folder of host/ or a top-level file (without extension); top-level
 * files not named here are the shared helpers on the lowest floor, below
 * every folder.
 */
export const LAYERS = [
  ['cli', 'command-line', 'index', 'testing'],
  // The admin console calls the commands' own code (access explain, pin --diff), and is wired in by start.
  ['commands', 'admin-console'],
  // The sinks' implementations (Redis, OpenTelemetry): wired at start, called by the layers below through sinks/.
  ['cluster'],
  ['telemetry'],
  ['audit'],
  ['serve'],
  ['proxy'],
  ['reload'],
  ['host-status'],
  ['runtime', 'client-sessions', 'mount-events'],
  ['catalogue'],
  ['pins'],
  ['mounts'],
  ['loader'],
  ['config'],
  // The interfaces the layers above them call; telemetry/, cluster/ and the serving layers implement them.
  ['sinks'],
  // What every layer speaks of: list kinds, cache hints, a call's hooks, a continuation's owner, a checked result's text.
  ['vocabulary'],
];
const LOWEST = LAYERS.length;
const ORDER = LAYERS.map((names) => names.join(' · ')).join(' → ');

/** The layer of a file, by its path inside the host folder; a folder in no layer has index -1. */
function layerOf(path) {
  const parts = path.split('/');
  const folder = parts.length > 1;
  const name = folder ? parts[0] : parts[0].replace(/\.ts$/, '');
  const index = LAYERS.findIndex((names) => names.includes(name));
  return { name: folder ? `${name}/` : `${name}.ts`, index: index === -1 && !folder ? LOWEST : index };
}

function sourceFiles(folder, under = folder) {
  // Sorted, so that a cycle is reported from the same file on every machine.
  const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  return entries.flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path, under);
    const source = entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts');
    return source ? [relative(under, path).split(sep).join('/')] : [];
  });
}

/** The relative modules a source file imports: static, type-only, re-exported and dynamic (with a literal specifier). */
function importsOf(source) {
  const found = [];
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    if (/^(Import|ExportAll|ExportNamed)Declaration$/.test(node.type) && node.source) found.push(node.source.value);
    if (node.type === 'CallExpression' && node.callee.type === 'Import' && node.arguments[0]?.type === 'StringLiteral')
      found.push(node.arguments[0].value);
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object' && value !== node.loc) visit(value);
    }
  };
  visit(parse(source, { sourceType: 'module', plugins: ['typescript'] }).program);
  return found.filter((specifier) => specifier.startsWith('.'));
}

const shown = (path) => `host/${path}`;

/** The import graph of a host folder: file → the files it imports, paths relative to the folder. */
export function importGraph(folder) {
  const graph = new Map();
  for (const file of sourceFiles(folder)) {
    // Under NodeNext a source imports `./x.js` and means `./x.ts`.
    const targets = importsOf(readFileSync(join(folder, file), 'utf8')).map((specifier) =>
      relative(folder, resolve(folder, dirname(file), specifier.replace(/\.js$/, '.ts')))
        .split(sep)
        .join('/'),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** Every import that climbs a layer, and every circle of files: each as a line that names it and the rule. */
export function layerProblems(graph) {
  const problems = [];
  const unplaced = new Set(
    [...graph.keys()]
      .map(layerOf)
      .filter((layer) => layer.index === -1)
      .map(({ name }) => name),
  );
  for (const name of unplaced)
    problems.push(
      `host/${name} is in no layer. Fix: add '${name.slice(0, -1)}' to LAYERS in scripts/check-layers.js at its place in the order, and to the drawing in docs/architecture.md.`,
    );
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    for (const target of targets) {
      const to = layerOf(target);
      if (from.index !== -1 && to.index !== -1 && to.index < from.index)
        problems.push(
          `upward import: ${shown(file)} → ${shown(target)} (${from.name} may not import ${to.name}, a layer above it). ` +
            `Fix: move what both need down to a layer below ${from.name}, or report through an interface in sinks/. ` +
            `Layers, top first: ${ORDER} → other top-level files.`,
        );
    }
  }
  for (const { circle, tied } of circles(graph)) {
    const more =
      tied > circle.length ? `; ${tied} files are tied together, and another circle shows once this one is broken` : '';
    problems.push(
      `import cycle: ${[...circle, circle[0]].map(shown).join(' → ')} (no files may import each other, even through others${more}). ` +
        `Fix: move what one of them takes from the next into a file of its own, below both.`,
    );
  }
  return problems;
}

/** The strongly connected groups of more than one file (Tarjan): one circle through each, and how many files it ties. */
function circles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  let next = 0;
  const connect = (file) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
    }
    if (low.get(file) !== index.get(file)) return;
    const group = new Set();
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      group.add(member);
    } while (member !== file);
    if (group.size > 1 || graph.get(file).includes(file))
      groups.push({ circle: circleThrough(graph, group, file), tied: group.size });
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return groups;
}

/** One shortest path from `start` back to itself inside a strongly connected group. */
function circleThrough(graph, group, start) {
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const target of graph.get(file)) {
      if (target === start) {
        const path = [];
        for (let at = file; at !== undefined; at = cameFrom.get(at)) path.unshift(at);
        return path;
      }
      if (group.has(target) && !cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start];
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const folder = resolve(process.argv[2] ?? 'host');
  const problems = layerProblems(importGraph(folder));
  for (const problem of problems) console.error(`layers: ${problem}`);
  if (problems.length > 0) {
    console.error(`layers: ${problems.length} problem(s) in ${folder}; the layers are drawn in docs/architecture.md`);
    process.exitCode = 1;
  } else console.log(`layers: ${folder} imports one way down, with no cycles`);
}
