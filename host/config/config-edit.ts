/**
 * Adding a plugin entry to a config file as its author would type it, for
 * `mcp-host add`. Every byte of the file outside the insertion stays as it
 * was: comments, quotes, blank lines, the order of keys.
 *
 * A JavaScript or TypeScript config is parsed with @babel/parser (the parser
 * behind Babel, which reads every syntax a config file may use, TypeScript
 * included) only to find where the `plugins` array ends; the entry is then
 * inserted as text at that offset. Rewriting through an AST printer (recast,
 * magicast) would reprint the array it touched and move its comments, and
 * magicast does not read `module.exports` at all. A JSON config is
 * re-serialized with its own indentation (JSON has no comments to keep).
 */
import { basename, extname } from 'node:path';
import { parse } from '@babel/parser';
import type { ArrayExpression, Expression, Node, ObjectExpression, Statement } from '@babel/types';
import { HostError } from '../errors.js';
import { isPlainObject } from '../plain-object.js';

/**
 * A value the config reads from the host's environment when it loads
 * (`process.env.NAME`), so that a secret given to `add --env NAME` is never
 * written into the file.
 */
export class EnvironmentReference {
  constructor(readonly name: string) {}

  /** How `add` reports the entry it wrote. */
  toJSON(): string {
    return `process.env.${this.name}`;
  }
}

export type NewEntry = { package: string } & ({ prefix: string } | { flat: true } | Record<never, never>) & {
    bin?: string;
    args?: string[];
    env?: Record<string, string | EnvironmentReference>;
  };

/** The file's text with `entry` appended to its plugins. Throws a HostError naming the fix when it cannot. */
export function withPluginEntry(file: string, source: string, entry: NewEntry): string {
  const extension = extname(file);
  if (extension === '.json' || basename(file) === '.mcp-hostrc') {
    return withJsonEntry(file, source, entry, basename(file) === 'package.json');
  }
  if (['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'].includes(extension)) return withScriptEntry(file, source, entry);
  throw cannotEdit(file, entry, 'mcp-host add edits JavaScript, TypeScript and JSON configs only');
}

function cannotEdit(file: string, entry: NewEntry, why: string): HostError {
  return new HostError({
    where: file,
    what: `${why}.`,
    fix: `add the entry to its plugins by hand: ${entryText(entry, "'")}`,
  });
}

function withJsonEntry(file: string, source: string, entry: NewEntry, inPackageJson: boolean): string {
  const document: unknown = JSON.parse(source);
  const config = inPackageJson && isPlainObject(document) ? document['mcp-host'] : document;
  if (!isPlainObject(config) || (config.plugins !== undefined && !Array.isArray(config.plugins))) {
    throw cannotEdit(file, entry, 'its plugins are not an array');
  }
  const reference = Object.values(entry.env ?? {}).find((value) => value instanceof EnvironmentReference);
  if (reference) {
    throw cannotEdit(
      file,
      entry,
      `a JSON config cannot read the environment variable ${reference.name} when it loads; give its value (--env ${reference.name}=VALUE), or use a JavaScript config`,
    );
  }
  config.plugins = [...((config.plugins as unknown[] | undefined) ?? []), entry];
  const indent = /^[ \t]+(?=")/m.exec(source)?.[0] ?? '  ';
  return `${JSON.stringify(document, null, indent)}${source.endsWith('\n') ? '\n' : ''}`;
}

function withScriptEntry(file: string, source: string, entry: NewEntry): string {
  const isTypeScript = /\.[cm]?ts$/.test(file);
  const program = parse(source, {
    sourceType: 'unambiguous',
    plugins: isTypeScript ? ['typescript'] : [],
  }).program;
  const config = configObject(program.body);
  if (!config) {
    throw cannotEdit(file, entry, 'no config object found (export default { … } or module.exports = { … })');
  }
  const quote = preferredQuote(source);
  const plugins = config.properties.find(
    (property) =>
      property.type === 'ObjectProperty' &&
      ((property.key.type === 'Identifier' && property.key.name === 'plugins') ||
        (property.key.type === 'StringLiteral' && property.key.value === 'plugins')),
  );
  if (!plugins) {
    const indent = `${lineIndent(source, config.start!)}  `;
    return insertAt(source, config.start! + 1, `\n${indent}plugins: [${entryText(entry, quote)}],`);
  }
  const array = plugins.type === 'ObjectProperty' ? unwrap(plugins.value as Expression) : undefined;
  if (array?.type !== 'ArrayExpression') throw cannotEdit(file, entry, 'its plugins are not an array literal');
  return insertIntoArray(source, array, entryText(entry, quote));
}

/** The object a config exports: `export default {…}` or `module.exports = {…}`, through a variable, a call or a cast. */
function configObject(body: Statement[]): ObjectExpression | undefined {
  const bindings = new Map<string, Expression>();
  for (const statement of body) {
    if (statement.type !== 'VariableDeclaration') continue;
    for (const declarator of statement.declarations) {
      if (declarator.id.type === 'Identifier' && declarator.init) bindings.set(declarator.id.name, declarator.init);
    }
  }
  const objectOf = (node: Node | null | undefined, depth = 0): ObjectExpression | undefined => {
    const expression = node ? unwrap(node) : undefined;
    if (!expression || depth > 4) return undefined;
    if (expression.type === 'ObjectExpression') return expression;
    if (expression.type === 'CallExpression') return objectOf(expression.arguments[0], depth + 1); // defineConfig({ … })
    if (expression.type === 'Identifier') return objectOf(bindings.get(expression.name), depth + 1);
    return undefined;
  };
  for (const statement of body) {
    if (statement.type === 'ExportDefaultDeclaration') return objectOf(statement.declaration);
    if (
      statement.type === 'ExpressionStatement' &&
      statement.expression.type === 'AssignmentExpression' &&
      isModuleExports(statement.expression.left)
    ) {
      return objectOf(statement.expression.right);
    }
  }
  return undefined;
}

function isModuleExports(node: Node): boolean {
  return (
    node.type === 'MemberExpression' &&
    node.object.type === 'Identifier' &&
    node.object.name === 'module' &&
    node.property.type === 'Identifier' &&
    node.property.name === 'exports'
  );
}

/** An expression without the parentheses and TypeScript casts around it. */
function unwrap(node: Node): Node {
  let current = node;
  while (
    current.type === 'TSAsExpression' ||
    current.type === 'TSSatisfiesExpression' ||
    current.type === 'ParenthesizedExpression'
  ) {
    current = current.expression;
  }
  return current;
}

/**
 * Insert `text` as the array's last element, in the array's own layout: on
 * a line of its own, indented like the element before it, when the array
 * spans lines; after a comma on the same line when it does not.
 */
function insertIntoArray(source: string, array: ArrayExpression, text: string): string {
  const closing = array.end! - 1; // the `]`
  const last = array.elements.at(-1);
  const multiline = source.slice(array.start!, closing).includes('\n');
  if (!multiline) {
    return last ? insertAt(source, last.end!, `, ${text}`) : insertAt(source, closing, text);
  }
  const closingLineStart = source.lastIndexOf('\n', closing - 1) + 1;
  const closingOnOwnLine = source.slice(closingLineStart, closing).trim() === '';
  if (!last) {
    const indent = `${lineIndent(source, closing)}  `;
    return closingOnOwnLine
      ? insertAt(source, closingLineStart, `${indent}${text},\n`)
      : insertAt(source, closing, `\n${indent}${text},\n${lineIndent(source, array.start!)}`);
  }
  const indent = lineIndent(source, last.start!);
  const trailingComma = (array.extra as { trailingComma?: number } | undefined)?.trailingComma;
  // After the last element's line, so a comment ending that line stays with it.
  const afterLast = trailingComma ?? last.end!;
  const lineEnd = source.indexOf('\n', afterLast);
  const insertion = lineEnd === -1 || lineEnd > closing ? closing : lineEnd;
  const withComma = trailingComma === undefined ? insertAt(source, last.end!, ',') : source;
  const shift = trailingComma === undefined ? 1 : 0;
  return insertAt(withComma, insertion + shift, `\n${indent}${text}${trailingComma === undefined ? '' : ','}`);
}

function insertAt(source: string, offset: number, text: string): string {
  return source.slice(0, offset) + text + source.slice(offset);
}

/** The leading whitespace of the line holding `offset`. */
function lineIndent(source: string, offset: number): string {
  const lineStart = source.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(source.slice(lineStart))![0];
}

/** The quote the file's strings mostly use. */
function preferredQuote(source: string): "'" | '"' {
  const single = source.match(/'[^'\n]*'/g)?.length ?? 0;
  const double = source.match(/"[^"\n]*"/g)?.length ?? 0;
  return double > single ? '"' : "'";
}

/** `{ package: '@acme/mcp-weather', prefix: 'weather', env: { KEY: process.env.KEY } }` in the file's quotes. */
function entryText(entry: NewEntry, quote: "'" | '"'): string {
  const literal = (value: string) => (quote === '"' || /['\\]/.test(value) ? JSON.stringify(value) : `'${value}'`);
  const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : literal(name));
  const text = (value: unknown): string => {
    if (typeof value === 'string') return literal(value);
    if (value instanceof EnvironmentReference) return `process.env.${value.name}`;
    if (Array.isArray(value)) return `[${value.map(text).join(', ')}]`;
    if (typeof value === 'object' && value !== null) {
      return `{ ${Object.entries(value)
        .map(([name, item]) => `${key(name)}: ${text(item)}`)
        .join(', ')} }`;
    }
    return String(value);
  };
  return text(entry);
}
