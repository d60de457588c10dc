// What a plugin author and an operator import from the package by its name,
// through package.json "exports" (resolved here by the package's own name,
// as a file inside it may): `mcp-host` and `mcp-host/plugin`.
import t from 'tap';

t.test('definePlugin, from mcp-host and from mcp-host/plugin, returns the definition it is given', async (t) => {
  const main = await import('mcp-host');
  const plugin = await import('mcp-host/plugin');
  t.equal(main.definePlugin, plugin.definePlugin, 'one function under both names');
  const definition = { create: () => ({}) as never };
  t.equal(plugin.definePlugin(definition), definition, 'unchanged: it is there for the types');
});
