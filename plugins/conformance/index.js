// @mcp-host/conformance: everything the official MCP conformance suite
// (`@modelcontextprotocol/conformance`, server mode) asks a server to
// implement, written with the v2 MCP SDK. Each tool, resource and prompt
// below is named and shaped as its scenario's description requires, so the
// suite can judge the same plugin served directly and mounted behind
// mcp-host, and any difference is the host's.
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  completable,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  McpServer,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { RED_PIXEL_PNG, SILENT_WAV } from './media.js';
import { registerInputRequiredTools, sampledText, STATE_CODEC } from './input-required.js';
import { registerStatelessDiagnostics } from './stateless.js';
import { SKILLS } from './skills.js';
import { gateTaskRequiredTools, registerTasks } from './tasks.js';

const { name: PACKAGE_NAME, version: VERSION } = createRequire(import.meta.url)('./package.json');

/** The pause between the steps of the logging and progress tools: the suite expects ~50 ms. */
const STEP_MS = 50;

/** Values `completion/complete` offers for `test_prompt_with_arguments`'s `arg1`. */
const ARG1_SUGGESTIONS = ['hello', 'help', 'test', 'testing', 'testValue1'];

/** The URI the subscription scenarios subscribe to. */
const WATCHED_URI = 'test://watched-resource';

/** @typedef {import('@modelcontextprotocol/server').ServerContext} ServerContext */
/** @typedef {{ debug(object: object, message?: string): void }} ConformanceLogger */

/** @param {string} text */
const text = (text) => ({ type: /** @type {const} */ ('text'), text });
const image = () => ({ type: /** @type {const} */ ('image'), data: RED_PIXEL_PNG, mimeType: 'image/png' });

/** @param {unknown} options */
function checkOptions(options) {
  if (options === undefined || options === null) return;
  if (typeof options === 'object' && !Array.isArray(options) && Object.keys(options).length === 0) return;
  throw new Error(
    `${PACKAGE_NAME}: takes no options, got ${JSON.stringify(options)}. ` +
      'Fix: remove "options" from its entry in the mcp-host config.',
  );
}

/**
 * An `elicitation/create` for the call being served, answered as
 * `<label>: action=..., content={...}`, the text the elicitation scenarios
 * describe. Asked the 2026-07-28 way, by returning `inputRequired(...)`: the
 * SDK's legacy shim puts the same question to a 2025-era client mid-call.
 * @param {ServerContext} ctx
 * @param {string} label
 * @param {{ message: string, properties: Record<string, object>, required?: string[] }} form
 */
function elicit(ctx, label, { message, properties, required }) {
  const answer = inputResponse(ctx.mcpReq.inputResponses, 'answer');
  if (answer.kind !== 'elicit') {
    const requestedSchema = { type: 'object', properties, ...(required ? { required } : {}) };
    return inputRequired({
      inputRequests: { answer: { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } } },
    });
  }
  return { content: [text(`${label}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
}

/** @param {McpServer} server */
function registerContentTools(server) {
  server.registerTool('test_simple_text', { description: 'Returns one text content block.' }, async () => ({
    content: [text('This is a simple text response for testing.')],
  }));
  server.registerTool(
    'test_image_content',
    { description: 'Returns one image content block: a 1x1 red PNG.' },
    async () => ({ content: [image()] }),
  );
  server.registerTool(
    'test_audio_content',
    { description: 'Returns one audio content block: 10 ms of silent WAV.' },
    async () => ({ content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }] }),
  );
  server.registerTool('test_embedded_resource', { description: 'Returns one embedded text resource.' }, async () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));
  server.registerTool(
    'test_multiple_content_types',
    { description: 'Returns text, image and embedded resource content in one result.' },
    async () => ({
      content: [
        text('Multiple content types test:'),
        image(),
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  );
  server.registerTool(
    'test_error_handling',
    { description: 'Always fails: the result has isError: true and says why.' },
    async () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  );
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features ($schema, $defs, $ref, additionalProperties).',
      inputSchema: fromJsonSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      }),
    },
    async (args) => ({ content: [text(`Received: ${JSON.stringify(args)}`)] }),
  );
  server.registerTool(
    'test_custom_header',
    {
      description:
        'Echoes its region, which clients mirror into the Mcp-Param-Region header (x-mcp-header, SEP-2243) so that intermediaries can route on it.',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { region: { type: 'string', description: 'Where to run', 'x-mcp-header': 'Region' } },
        required: ['region'],
      }),
    },
    async ({ region }) => ({ content: [text(`Region: ${region}`)] }),
  );
}

/** @param {McpServer} server */
function registerStreamingTools(server) {
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Sends three info log messages while it runs, ~50 ms apart.' },
    async (ctx) => {
      await ctx.mcpReq.log('info', 'Tool execution started');
      await sleep(STEP_MS);
      await ctx.mcpReq.log('info', 'Tool processing data');
      await sleep(STEP_MS);
      await ctx.mcpReq.log('info', 'Tool execution completed');
      return { content: [text('Tool with logging executed successfully')] };
    },
  );
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50 and 100 of 100, ~50 ms apart, when the call carries a progressToken.' },
    async (ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(STEP_MS);
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100, message: `${progress}% done` },
          });
        }
      }
      return { content: [text('Tool with progress executed successfully')] };
    },
  );
  server.registerTool(
    'test_reconnection',
    {
      description:
        'Closes its SSE stream mid-call when the HTTP transport can resume it, then answers: the client must reconnect to get the result.',
    },
    async (ctx) => {
      ctx.http?.closeSSE?.();
      await sleep(2 * STEP_MS);
      return { content: [text('Reconnection test completed successfully')] };
    },
  );
}

/** @param {McpServer} server */
function registerClientRequestTools(server) {
  server.registerTool(
    'test_sampling',
    {
      description: 'Asks the client for an LLM completion of `prompt` (sampling/createMessage) and returns it.',
      inputSchema: { prompt: z.string().describe('The prompt to send to the LLM') },
    },
    async ({ prompt }, ctx) => {
      const answer = sampledText(ctx.mcpReq.inputResponses?.completion);
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            completion: inputRequired.createMessage({
              messages: [{ role: 'user', content: text(prompt) }],
              maxTokens: 100,
            }),
          },
        });
      }
      return { content: [text(`LLM response: ${answer}`)] };
    },
  );
  server.registerTool(
    'test_elicitation',
    {
      description: 'Asks the user (elicitation/create) for a username and an email, showing `message`.',
      inputSchema: { message: z.string().describe('The message to show the user') },
    },
    async ({ message }, ctx) =>
      elicit(ctx, 'User response', {
        message,
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      }),
  );
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicitation whose schema has a default for every primitive type (SEP-1034).' },
    async (ctx) =>
      elicit(ctx, 'Elicitation completed', {
        message: 'Please review and update the form fields with defaults',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
      }),
  );
  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicitation with all five enum schema variants (SEP-1330).' },
    async (ctx) =>
      elicit(ctx, 'Elicitation completed', {
        message: 'Please select options from the enum fields',
        properties: {
          untitledSingle: {
            type: 'string',
            description: 'Untitled single-select',
            enum: ['option1', 'option2', 'option3'],
          },
          titledSingle: {
            type: 'string',
            description: 'Titled single-select',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Legacy titled enum (enumNames, deprecated)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Untitled multi-select',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Titled multi-select',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      }),
  );
}

/**
 * @param {McpServer} server
 * @param {ConformanceLogger | undefined} logger
 */
function registerResources(server, logger) {
  server.registerResource(
    'static-text',
    'test://static-text',
    { title: 'Static text', description: 'A fixed text resource.', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { title: 'Static binary', description: 'A fixed binary resource: a 1x1 red PNG.', mimeType: 'image/png' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: RED_PIXEL_PNG }] }),
  );
  server.registerResource(
    'watched-resource',
    WATCHED_URI,
    { title: 'Watched resource', description: 'A text resource clients may subscribe to.', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This resource can be watched.' }] }),
  );
  server.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    {
      title: 'Template data',
      description: 'JSON data for any id, substituted from the URI.',
      mimeType: 'application/json',
    },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );

  // McpServer serves list and read; subscriptions are the low-level
  // server's, so they are registered on it. The resources here never change,
  // so the set only records who asked (no updates are ever due).
  const subscribed = new Set();
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    subscribed.add(request.params.uri);
    logger?.debug({ uri: request.params.uri, subscribed: subscribed.size }, 'subscribed');
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (request) => {
    subscribed.delete(request.params.uri);
    logger?.debug({ uri: request.params.uri, subscribed: subscribed.size }, 'unsubscribed');
    return {};
  });
}

/** @param {McpServer} server */
function registerPrompts(server) {
  server.registerPrompt('test_simple_prompt', { description: 'A prompt without arguments.' }, async () => ({
    messages: [{ role: 'user', content: text('This is a simple prompt for testing.') }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt that substitutes two arguments; arg1 completes.',
      argsSchema: {
        arg1: completable(z.string().describe('First test argument'), (value) =>
          ARG1_SUGGESTIONS.filter((suggestion) => suggestion.startsWith(value ?? '')),
        ),
        arg2: z.string().describe('Second test argument'),
      },
    },
    async ({ arg1, arg2 }) => ({
      messages: [{ role: 'user', content: text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`) }],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt that embeds a text resource under the URI it is given.',
      argsSchema: { resourceUri: z.string().describe('URI of the resource to embed') },
    },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: text('Please process the embedded resource above.') },
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_image',
    { description: 'A prompt with an image: a 1x1 red PNG.' },
    async () => ({
      messages: [
        { role: 'user', content: image() },
        { role: 'user', content: text('Please analyze the image above.') },
      ],
    }),
  );
}

export default {
  /**
   * One server per call: the host calls it once per mount, a direct HTTP
   * server once per session.
   * @param {{ options?: unknown, logger?: ConformanceLogger }} context
   */
  create({ options, logger }) {
    checkOptions(options);
    const server = new McpServer(
      { name: 'mcp-host-conformance', version: VERSION },
      {
        capabilities: { logging: {}, completions: {}, resources: { subscribe: true } },
        // Every requestState this server issues is signed; one it did not issue is refused before any handler runs.
        requestState: { verify: STATE_CODEC.verify },
      },
    );
    gateTaskRequiredTools(server);
    registerContentTools(server);
    registerStreamingTools(server);
    registerClientRequestTools(server);
    registerInputRequiredTools(server);
    registerStatelessDiagnostics(server);
    registerResources(server, logger);
    registerPrompts(server);
    registerTasks(server);
    SKILLS.attach(server);
    return server;
  },
};
