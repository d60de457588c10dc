// How `mcp-host add` inserts an entry into each shape of config file a person
// writes: every byte outside the insertion unchanged, the entry in the
// array's own layout and the file's quotes, and a clear refusal (with the
// line to paste) where it cannot edit.
import t from 'tap';
import { EnvironmentReference, withPluginEntry } from '../host/config/config-edit.js';
import { HostError } from '../host/errors.js';

const entry = { package: '@acme/mcp-weather', prefix: 'weather' };

t.test('JavaScript and TypeScript configs, each in its own layout', async (t) => {
  const cases: [string, string, string][] = [
    [
      'mcp-host.config.js',
      "export default {\n  plugins: [\n    { package: './a' }, // mine\n  ],\n};\n",
      "export default {\n  plugins: [\n    { package: './a' }, // mine\n    { package: '@acme/mcp-weather', prefix: 'weather' },\n  ],\n};\n",
    ],
    [
      'mcp-host.config.cjs',
      'module.exports = {\n  plugins: [\n    { package: "a", flat: true }\n  ]\n};\n',
      'module.exports = {\n  plugins: [\n    { package: "a", flat: true },\n    { package: "@acme/mcp-weather", prefix: "weather" }\n  ]\n};\n',
    ],
    [
      'mcp-host.config.mjs',
      "export default { plugins: [{ package: 'a', flat: true }] };\n",
      "export default { plugins: [{ package: 'a', flat: true }, { package: '@acme/mcp-weather', prefix: 'weather' }] };\n",
    ],
    [
      'mcp-host.config.js',
      'export default { plugins: [] };\n',
      "export default { plugins: [{ package: '@acme/mcp-weather', prefix: 'weather' }] };\n",
    ],
    [
      'mcp-host.config.js',
      "export default {\n  name: 'x',\n};\n",
      "export default {\n  plugins: [{ package: '@acme/mcp-weather', prefix: 'weather' }],\n  name: 'x',\n};\n",
    ],
    [
      'mcp-host.config.ts',
      "import type { HostConfig } from 'mcp-host';\nconst config = { plugins: [] } satisfies HostConfig;\nexport default config;\n",
      "import type { HostConfig } from 'mcp-host';\nconst config = { plugins: [{ package: '@acme/mcp-weather', prefix: 'weather' }] } satisfies HostConfig;\nexport default config;\n",
    ],
    [
      'mcp-host.config.js',
      "import { defineConfig } from './define.js';\nexport default defineConfig({\n  plugins: [\n    { package: 'a' },\n  ],\n});\n",
      "import { defineConfig } from './define.js';\nexport default defineConfig({\n  plugins: [\n    { package: 'a' },\n    { package: '@acme/mcp-weather', prefix: 'weather' },\n  ],\n});\n",
    ],
  ];
  for (const [file, before, after] of cases) t.equal(withPluginEntry(file, before, entry), after, before);
});

t.test('JSON configs keep their indentation; package.json under its "mcp-host" key', async (t) => {
  t.equal(
    withPluginEntry('.mcp-hostrc.json', '{\n    "plugins": []\n}\n', { package: 'a', flat: true }),
    '{\n    "plugins": [\n        {\n            "package": "a",\n            "flat": true\n        }\n    ]\n}\n',
  );
  t.equal(
    withPluginEntry('package.json', '{\n  "name": "p",\n  "mcp-host": {}\n}', { package: 'a' }),
    '{\n  "name": "p",\n  "mcp-host": {\n    "plugins": [\n      {\n        "package": "a"\n      }\n    ]\n  }\n}',
  );
});

t.test('what cannot be edited is refused with the line to add by hand', async (t) => {
  const refusal = (file: string, source: string) => {
    try {
      withPluginEntry(file, source, entry);
    } catch (error) {
      return error instanceof HostError ? error.message : String(error);
    }
    return 'edited';
  };
  const byHand = "Fix: add the entry to its plugins by hand: { package: '@acme/mcp-weather', prefix: 'weather' }";
  t.equal(
    refusal('/p/.mcp-hostrc.yaml', 'plugins: []\n'),
    `/p/.mcp-hostrc.yaml: mcp-host add edits JavaScript, TypeScript and JSON configs only. ${byHand}`,
  );
  t.equal(
    refusal('/p/mcp-host.config.js', 'export const plugins = [];\n'),
    `/p/mcp-host.config.js: no config object found (export default { … } or module.exports = { … }). ${byHand}`,
  );
  t.equal(
    refusal('/p/mcp-host.config.js', 'const list = [];\nexport default { plugins: list.concat([]) };\n'),
    `/p/mcp-host.config.js: its plugins are not an array literal. ${byHand}`,
  );
  t.equal(
    refusal('/p/.mcp-hostrc.json', '{ "plugins": {} }'),
    `/p/.mcp-hostrc.json: its plugins are not an array. ${byHand}`,
  );
});

t.test(
  'an entry with args and env: a reference to the environment is written as process.env, never into JSON',
  async (t) => {
    const withEnv = {
      package: 'srv',
      prefix: 's',
      args: ['./data'],
      env: { TOKEN: new EnvironmentReference('TOKEN'), 'X-MODE': 'ro' },
    };
    t.equal(
      withPluginEntry('/p/mcp-host.config.js', 'export default { plugins: [] };\n', withEnv),
      "export default { plugins: [{ package: 'srv', prefix: 's', args: ['./data'], env: { TOKEN: process.env.TOKEN, 'X-MODE': 'ro' } }] };\n",
    );
    t.throws(() => withPluginEntry('/p/.mcp-hostrc.json', '{ "plugins": [] }', withEnv), {
      message:
        "/p/.mcp-hostrc.json: a JSON config cannot read the environment variable TOKEN when it loads; give its value (--env TOKEN=VALUE), or use a JavaScript config. Fix: add the entry to its plugins by hand: { package: 'srv', prefix: 's', args: ['./data'], env: { TOKEN: process.env.TOKEN, 'X-MODE': 'ro' } }",
    });
  },
);
