/** A JSON object: not null, not an array. What config entries, manifests and MCP params and results must be. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
