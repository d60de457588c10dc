import type { Generation } from '../catalogue/generation.js';
import { isPlainObject } from '../plain-object.js';

type Json = Record<string, unknown>;

/**
 * Undoing, for 2026-07-28 clients, the `{result: …}` wrap a plugin's SDK
 * applies on the host's 2025-era link (SEP-2106).
 *
 * The 2025 revisions require a tool's `outputSchema` to have an object root,
 * so the SDK v2 a plugin is built with advertises a non-object root (say
 * `z.array(z.number())`) as `{type: 'object', properties: {result: <natural>},
 * required: ['result']}` (with `$schema` copied up and same-document `$ref`s
 * re-pointed under `#/properties/result`) and sends the matching
 * `structuredContent` as `{result: <value>}`. The 2026-07-28 revision
 * carries the natural schema and value, and that is what a modern client
 * served by the plugin directly sees; the host unwraps them for it. A
 * 2025-era client keeps the wrapped form, as it came.
 *
 * The wrap carries no marker, so a schema is taken for one only when it is
 * exactly the SDK's shape: those four keys and no others (an object schema an
 * author writes, or one zod emits, has `additionalProperties` or more), a
 * non-object `result`, the same `$schema` at both levels, and every
 * same-document `$ref` inside pointing under `#/properties/result`. A
 * schema-less tool whose non-object value the SDK wrapped is not unwrapped:
 * nothing tells its `{result: …}` from an object a tool returned.
 */
export function naturalOutputSchema(schema: unknown): Json | undefined {
  if (!isPlainObject(schema) || schema.type !== 'object') return undefined;
  if (Object.keys(schema).some((key) => !WRAP_KEYS.has(key))) return undefined;
  const { properties, required } = schema;
  if (!Array.isArray(required) || required.length !== 1 || required[0] !== 'result') return undefined;
  if (!isPlainObject(properties) || Object.keys(properties).length !== 1 || !isPlainObject(properties.result))
    return undefined;
  const inner = properties.result;
  if (inner.type === 'object' || inner.$schema !== schema.$schema) return undefined;
  return pointRefsToRoot(inner, false) as Json | undefined;
}

/** A `tools/list` result with each wrapped output schema unwrapped. */
export function unwrapListedSchemas(result: Json): Json {
  const tools = result.tools as Json[];
  return {
    ...result,
    tools: tools.map((tool) => {
      const natural = naturalOutputSchema(tool.outputSchema);
      return natural ? { ...tool, outputSchema: natural } : tool;
    }),
  };
}

/** The output schema the catalogue lists for a composed tool name, if any. */
export function listedOutputSchema(generation: Generation, name: unknown): unknown {
  return generation.index.owners.tools.get(String(name))?.item.outputSchema;
}

/** A `tools/call` result with its `{result: …}` unwrapped, when the tool's listed schema is a wrap. */
export function unwrapCallResult(result: Json, listedSchema: unknown): Json {
  const structured = result.structuredContent;
  if (!isPlainObject(structured) || Object.keys(structured).length !== 1 || !('result' in structured)) return result;
  return naturalOutputSchema(listedSchema) ? { ...result, structuredContent: structured.result } : result;
}

const WRAP_KEYS = new Set(['$schema', 'type', 'properties', 'required']);
const WRAPPED_ROOT = '#/properties/result';
/** Keywords whose values are instance data, not subschemas: a `$ref` inside is a literal. */
const DATA_KEYS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose values map names to subschemas. */
const NAME_MAP_KEYS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

/**
 * The wrap's `$ref` re-pointing, reversed (`#/properties/result…` → `#…`),
 * where the SDK applies it: subschema positions, outside a subtree whose
 * `$id` sets a new base. Undefined when a same-document `$ref` points
 * elsewhere: then the SDK did not write this schema.
 */
function pointRefsToRoot(node: unknown, inNameMap: boolean): unknown {
  if (Array.isArray(node)) {
    const items = node.map((item) => pointRefsToRoot(item, false));
    return items.includes(undefined) ? undefined : items;
  }
  if (!isPlainObject(node)) return node;
  if (!inNameMap && setsNewBase(node.$id)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    let mapped: unknown;
    if (inNameMap) mapped = pointRefsToRoot(value, false);
    else if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string' && value.startsWith('#')) {
      if (value !== WRAPPED_ROOT && !value.startsWith(`${WRAPPED_ROOT}/`)) return undefined;
      mapped = `#${value.slice(WRAPPED_ROOT.length)}`;
    } else if (DATA_KEYS.has(key)) mapped = value;
    else mapped = pointRefsToRoot(value, NAME_MAP_KEYS.has(key));
    if (mapped === undefined) return undefined;
    out[key] = mapped;
  }
  return out;
}

/** A fragment-only `$id` (`#item`) is an anchor, not a new base. */
function setsNewBase(id: unknown): boolean {
  return id !== undefined && !(typeof id === 'string' && id.startsWith('#'));
}
