/**
 * Records the tool lists of real MCP server packages from npm into
 * `test/fixtures/tool-catalogue/<package>@<version>.json`: the catalogue the
 * discovery search is measured on (bench/discovery.ts, docs/discovery.md).
 *
 * Each package is installed from npm into a scratch directory (scripts not
 * run: no browser downloads), its bin is started as a stdio MCP server and
 * asked `tools/list` (every page) by the SDK's own client, and the answer is
 * written with the package's name and version. Servers that check for an API
 * key at start are given a placeholder (never a real credential): listing
 * tools calls no API. A package that does not start or list within the time
 * limit is reported and skipped.
 *
 *   npm run build && node dist/bench/record-tool-catalogue.js [package[@version] ...]
 *
 * Without arguments it records the packages of SERVERS below.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { REPO_ROOT } from '../test/helpers/packages.js';
import type { RecordedServer } from '../test/helpers/tool-catalogue.js';

interface ServerToRecord {
  /** `name` or `name@version`, as npm install takes it. */
  spec: string;
  bin?: string;
  args?: string[];
  /** Placeholders for variables a server insists on at start; listing tools uses none of them. */
  env?: Record<string, string>;
}

const PLACEHOLDER = 'placeholder-not-a-credential';
const SCRATCH = mkdtempSync(join(tmpdir(), 'tool-catalogue-'));

const SERVERS: ServerToRecord[] = [
  { spec: '@modelcontextprotocol/server-everything', args: ['stdio'] },
  { spec: '@modelcontextprotocol/server-filesystem', args: [SCRATCH] },
  { spec: '@modelcontextprotocol/server-memory' },
  { spec: '@modelcontextprotocol/server-sequential-thinking' },
  { spec: '@modelcontextprotocol/server-github', env: { GITHUB_PERSONAL_ACCESS_TOKEN: PLACEHOLDER } },
  { spec: '@modelcontextprotocol/server-slack', env: { SLACK_BOT_TOKEN: PLACEHOLDER, SLACK_TEAM_ID: 'T0' } },
  { spec: '@modelcontextprotocol/server-google-maps', env: { GOOGLE_MAPS_API_KEY: PLACEHOLDER } },
  { spec: '@modelcontextprotocol/server-brave-search', env: { BRAVE_API_KEY: PLACEHOLDER } },
  { spec: '@modelcontextprotocol/server-postgres', args: ['postgresql://127.0.0.1:9/none'] },
  { spec: '@modelcontextprotocol/server-puppeteer' },
  { spec: '@playwright/mcp' },
  { spec: 'chrome-devtools-mcp' },
  { spec: '@upstash/context7-mcp' },
  { spec: '@azure-devops/mcp', args: ['example-org'] },
  { spec: '@supabase/mcp-server-supabase', args: ['--access-token', PLACEHOLDER] },
  { spec: '@notionhq/notion-mcp-server' },
  { spec: 'mongodb-mcp-server' },
  { spec: '@zereight/mcp-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: PLACEHOLDER } },
  { spec: '@wonderwhy-er/desktop-commander' },
  { spec: '@executeautomation/playwright-mcp-server' },
  { spec: '@antv/mcp-server-chart' },
  { spec: '@winor30/mcp-server-datadog', env: { DATADOG_API_KEY: PLACEHOLDER, DATADOG_APP_KEY: PLACEHOLDER } },
  { spec: '@circleci/mcp-server-circleci', env: { CIRCLECI_TOKEN: PLACEHOLDER } },
  { spec: '@sentry/mcp-server', args: ['--access-token', PLACEHOLDER] },
  { spec: '@launchdarkly/mcp-server', args: ['start', '--api-key', PLACEHOLDER] },
  { spec: '@shortcut/mcp', env: { SHORTCUT_API_TOKEN: PLACEHOLDER } },
  { spec: '@hubspot/mcp-server' },
  { spec: '@bytebase/dbhub', args: ['--demo'] },
  { spec: '@mobilenext/mobile-mcp' },
  { spec: 'n8n-mcp' },
  { spec: '@aashari/mcp-server-atlassian-jira' },
  { spec: '@brave/brave-search-mcp-server', env: { BRAVE_API_KEY: PLACEHOLDER } },
  { spec: 'tavily-mcp', env: { TAVILY_API_KEY: PLACEHOLDER } },
  { spec: 'firecrawl-mcp', env: { FIRECRAWL_API_KEY: PLACEHOLDER } },
  { spec: 'exa-mcp-server', env: { EXA_API_KEY: PLACEHOLDER } },
  { spec: '@perplexity-ai/mcp-server', env: { PERPLEXITY_API_KEY: PLACEHOLDER } },
  { spec: 'figma-developer-mcp', args: ['--figma-api-key', PLACEHOLDER, '--stdio'] },
  { spec: '@apify/actors-mcp-server', env: { APIFY_TOKEN: PLACEHOLDER } },
  { spec: '@eslint/mcp' },
  { spec: '@drawio/mcp' },
  { spec: '@currents/mcp', env: { CURRENTS_API_KEY: PLACEHOLDER } },
  { spec: 'mcp-server-code-runner' },
  { spec: '@mastra/mcp-docs-server' },
  { spec: 'next-devtools-mcp' },
  { spec: '@cocal/google-calendar-mcp' },
  { spec: '@larksuiteoapi/lark-mcp', args: ['mcp', '-a', PLACEHOLDER, '-s', PLACEHOLDER] },
  { spec: '@heroku/mcp-server', env: { HEROKU_API_KEY: PLACEHOLDER } },
  { spec: '@stripe/mcp', args: ['--tools=all', `--api-key=sk_test_${PLACEHOLDER}`] },
  { spec: '@postman/postman-mcp-server', args: ['--full'], env: { POSTMAN_API_KEY: PLACEHOLDER } },
  { spec: '@mondaydotcomorg/monday-api-mcp', args: ['-t', PLACEHOLDER] },
  { spec: 'mcp-server-kubernetes' },
  { spec: '@cyanheads/git-mcp-server' },
  { spec: 'airtable-mcp-server', env: { AIRTABLE_API_KEY: PLACEHOLDER } },
  { spec: '@modelcontextprotocol/server-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: PLACEHOLDER } },
  { spec: '@modelcontextprotocol/server-redis', args: ['redis://127.0.0.1:9'] },
  { spec: '@modelcontextprotocol/server-aws-kb-retrieval' },
  { spec: '@modelcontextprotocol/server-everart', env: { EVERART_API_KEY: PLACEHOLDER } },
  { spec: '@mapbox/mcp-server', env: { MAPBOX_ACCESS_TOKEN: `pk.${PLACEHOLDER}` } },
  { spec: '@neondatabase/mcp-server-neon', args: ['start', PLACEHOLDER] },
  { spec: '@netlify/mcp' },
  { spec: '@pinecone-database/mcp', env: { PINECONE_API_KEY: PLACEHOLDER } },
  { spec: '@elastic/mcp-server-elasticsearch', env: { ES_URL: 'http://127.0.0.1:9', ES_API_KEY: PLACEHOLDER } },
  {
    spec: '@browserbasehq/mcp-server-browserbase',
    env: { BROWSERBASE_API_KEY: PLACEHOLDER, BROWSERBASE_PROJECT_ID: 'p' },
  },
  { spec: '@cloudflare/playwright-mcp' },
  { spec: '@tacticlaunch/mcp-linear', env: { LINEAR_API_TOKEN: PLACEHOLDER } },
  { spec: '@auth0/auth0-mcp-server', args: ['run'] },
  { spec: '@upstash/mcp-server', args: ['run', 'user@example.com', PLACEHOLDER] },
  { spec: '@kazuph/mcp-taskmanager' },
  { spec: '@kimtaeyoon83/mcp-server-youtube-transcript' },
  { spec: '@agentdeskai/browser-tools-mcp' },
  { spec: '@twilio-alpha/mcp', args: [`AC${PLACEHOLDER}/SK${PLACEHOLDER}:${PLACEHOLDER}`] },
  // Everyday servers (weather, stays, to-dos, flights, translation, video, mail, news, crypto): the tasks of paraphrases.json
  // (docs/discovery.md) are asked as people ask an assistant, not as developers name their tools.
  { spec: '@dangahagan/weather-mcp' },
  { spec: 'open-meteo-mcp-server' },
  { spec: '@h1deya/mcp-server-weather' },
  { spec: '@openbnb/mcp-server-airbnb' },
  { spec: 'todoist-mcp', env: { TODOIST_API_TOKEN: PLACEHOLDER, API_KEY: PLACEHOLDER } },
  { spec: 'flightradar-mcp-server', env: { AVIATIONSTACK_API_KEY: PLACEHOLDER } },
  { spec: 'wikipedia-mcp' },
  { spec: 'deepl-mcp-server', env: { DEEPL_API_KEY: PLACEHOLDER } },
  { spec: 'youtube-data-mcp-server', env: { YOUTUBE_API_KEY: PLACEHOLDER } },
  { spec: '@skanda-yutori/mcp-send-email', env: { RESEND_API_KEY: PLACEHOLDER } },
  { spec: '@ericthered926/duckduckgo-mcp-server' },
  { spec: '@mcpfun/mcp-server-ccxt' },
];

const OUT_DIR = join(REPO_ROOT, 'test/fixtures/tool-catalogue');
const LIST_TIMEOUT_MS = 60_000;

async function record(server: ServerToRecord): Promise<void> {
  const dir = join(SCRATCH, server.spec.replace(/[@/]/g, '_'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"private":true}');
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', server.spec], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1' },
  });
  if (install.status !== 0) throw new Error(`npm install failed: ${install.stderr.slice(-400)}`);
  const name = server.spec.replace(/(?<=.)@[^/]*$/, '');
  const manifest = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as {
    version: string;
    bin?: string | Record<string, string>;
  };
  const bins = typeof manifest.bin === 'string' ? { [name]: manifest.bin } : (manifest.bin ?? {});
  const binPath = server.bin ? bins[server.bin] : Object.values(bins)[0];
  if (!binPath) throw new Error(`no bin in ${name}'s package.json`);
  const args = [join(dir, 'node_modules', name, binPath), ...(server.args ?? [])];
  const client = new Client({ name: 'tool-catalogue-recorder', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { PATH: process.env.PATH ?? '', HOME: SCRATCH, ...server.env },
    stderr: 'ignore',
    cwd: SCRATCH,
  });
  const timer = setTimeout(() => void client.close(), LIST_TIMEOUT_MS);
  try {
    await client.connect(transport);
    const tools: RecordedServer['tools'] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const recorded: RecordedServer = {
      package: name,
      version: manifest.version,
      command: [`${name}@${manifest.version}`, ...(server.args ?? [])],
      tools,
    };
    const file = join(OUT_DIR, `${name.replace('/', '__')}@${manifest.version}.json`);
    // The scratch directory a server names (its working directory, a path it was given) is this machine's, not the tool's.
    writeFileSync(file, JSON.stringify(recorded, null, 2).replaceAll(SCRATCH, '<dir>') + '\n');
    // In the repository's own format, as `npm run lint` checks every file.
    spawnSync(join(REPO_ROOT, 'node_modules/.bin/prettier'), ['--write', file], { stdio: 'ignore' });
    console.log(`${name}@${manifest.version}: ${tools.length} tools`);
  } finally {
    clearTimeout(timer);
    await client.close();
  }
}

mkdirSync(OUT_DIR, { recursive: true });
const chosen = process.argv.length > 2 ? process.argv.slice(2).map((spec) => ({ spec })) : SERVERS;
for (const server of chosen) {
  const picked = SERVERS.find((known) => known.spec === server.spec.replace(/(?<=.)@[^/]*$/, ''));
  try {
    await record({ ...picked, ...server });
  } catch (error) {
    console.log(`${server.spec}: not recorded (${(error as Error).message.split('\n')[0]})`);
  }
}
