// The multi-round-trip tools and prompt the 2026-07-28 conformance scenarios
// call (`input-required-result-*`, SEP-2322), written the way a plugin author
// writes them with SDK v2: a handler returns `inputRequired(...)` naming what
// it needs, and reads the answers from the retried request. The same handler
// serves a 2025-era client through the SDK's legacy shim.
import { randomBytes } from 'node:crypto';
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';

/** @typedef {import('@modelcontextprotocol/server').McpServer} McpServer */
/** @typedef {import('@modelcontextprotocol/server').ServerContext} ServerContext */

/**
 * Signs every `requestState` these handlers issue (the server verifies it
 * before a handler runs). One key per process: a stateless HTTP server
 * creates a server per request, and each round must verify under the key
 * that minted the last.
 */
export const STATE_CODEC = createRequestStateCodec({ key: randomBytes(32) });

/** @param {string} text */
const text = (text) => ({ content: [{ type: /** @type {const} */ ('text'), text }] });

/**
 * @param {string} message
 * @param {Record<string, object>} properties
 */
const form = (message, properties) =>
  inputRequired.elicit({
    message,
    requestedSchema: { type: 'object', properties, required: Object.keys(properties) },
  });
const NAME = { name: { type: 'string' } };
const rootsOf = (/** @type {unknown} */ answer) => {
  const view = inputResponse(/** @type {never} */ ({ answer }), 'answer');
  return view.kind === 'roots' ? view.roots.map((root) => root.uri) : [];
};
/** The text of a sampling answer, or undefined when `answer` is not one. */
export const sampledText = (/** @type {unknown} */ answer) => {
  const view = inputResponse(/** @type {never} */ ({ answer }), 'answer');
  if (view.kind !== 'sampling') return undefined;
  const blocks = Array.isArray(view.result.content) ? view.result.content : [view.result.content];
  return blocks.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
};

/** @param {McpServer} server */
export function registerInputRequiredTools(server) {
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'Asks for a name (input_required, key "user_name"), then greets it.' },
    async (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name');
      if (typeof answer?.name !== 'string') {
        return inputRequired({ inputRequests: { user_name: form('What is your name?', NAME) } });
      }
      return text(`Hello, ${answer.name}!`);
    },
  );
  server.registerTool(
    'test_input_required_result_sampling',
    { description: 'Asks for an LLM completion (key "capital_question"), then returns its text.' },
    async (ctx) => {
      const reply = sampledText(ctx.mcpReq.inputResponses?.capital_question);
      if (reply === undefined) {
        return inputRequired({
          inputRequests: {
            capital_question: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
              maxTokens: 100,
            }),
          },
        });
      }
      return text(`Sampling response: ${reply}`);
    },
  );
  server.registerTool(
    'test_input_required_result_list_roots',
    { description: 'Asks for the client\'s roots (key "client_roots"), then lists them.' },
    async (ctx) => {
      if (!ctx.mcpReq.inputResponses?.client_roots) {
        return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
      }
      return text(`Client roots: ${rootsOf(ctx.mcpReq.inputResponses.client_roots).join(', ')}`);
    },
  );
  server.registerTool(
    'test_input_required_result_request_state',
    { description: 'Asks for a confirmation with a signed requestState; answers "state-ok" once it verifies.' },
    async (ctx) => {
      const state = ctx.mcpReq.requestState();
      const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
      if (state?.step !== 'confirm' || !confirmed) {
        return inputRequired({
          inputRequests: { confirm: form('Please confirm', { ok: { type: 'boolean' } }) },
          requestState: await STATE_CODEC.mint({ step: 'confirm' }),
        });
      }
      return text(`state-ok: confirmed=${confirmed.ok}`);
    },
  );
  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks for a name, a sampled greeting and the roots at once, with a signed requestState.' },
    async (ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const name = acceptedContent(responses, 'user_name')?.name;
      const greeting = sampledText(responses?.greeting);
      if (ctx.mcpReq.requestState()?.step !== 'all' || name === undefined || greeting === undefined) {
        return inputRequired({
          inputRequests: {
            user_name: form('What is your name?', NAME),
            greeting: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
              maxTokens: 50,
            }),
            client_roots: inputRequired.listRoots(),
          },
          requestState: await STATE_CODEC.mint({ step: 'all' }),
        });
      }
      return text(`${greeting} ${name} (roots: ${rootsOf(responses?.client_roots).join(', ')})`);
    },
  );
  server.registerTool(
    'test_input_required_result_multi_round',
    { description: 'Asks for a name, then a colour, each round with a new signed requestState.' },
    async (ctx) => {
      const state = ctx.mcpReq.requestState();
      const responses = ctx.mcpReq.inputResponses;
      const name = acceptedContent(responses, 'step1')?.name;
      if (state?.round === 1 && typeof name === 'string') {
        return inputRequired({
          inputRequests: { step2: form('Step 2: What is your favorite color?', { color: { type: 'string' } }) },
          requestState: await STATE_CODEC.mint({ round: 2, name }),
        });
      }
      const color = acceptedContent(responses, 'step2')?.color;
      if (state?.round === 2 && typeof color === 'string') return text(`${state.name} likes ${color}`);
      return inputRequired({
        inputRequests: { step1: form('Step 1: What is your name?', NAME) },
        requestState: await STATE_CODEC.mint({ round: 1 }),
      });
    },
  );
  server.registerTool(
    'test_input_required_result_tampered_state',
    { description: 'Asks for a confirmation with a signed requestState; a tampered one is refused (-32602).' },
    async (ctx) => {
      if (ctx.mcpReq.requestState()?.step !== 'tamper-check') {
        return inputRequired({
          inputRequests: { confirm: form('Please confirm', { ok: { type: 'boolean' } }) },
          requestState: await STATE_CODEC.mint({ step: 'tamper-check' }),
        });
      }
      return text('state verified');
    },
  );
  server.registerTool(
    'test_input_required_result_capabilities',
    { description: 'Asks only for what the client declared it can answer (elicitation, sampling).' },
    async (ctx) => {
      const declared = /** @type {Record<string, unknown>} */ (
        ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? {}
      );
      const responses = ctx.mcpReq.inputResponses ?? {};
      /** @type {Record<string, import('@modelcontextprotocol/server').InputRequest>} */
      const wanted = {};
      if (declared.elicitation && !responses.user_name) wanted.user_name = form('What is your name?', NAME);
      if (declared.sampling && !responses.summary) {
        wanted.summary = inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the capabilities' } }],
          maxTokens: 50,
        });
      }
      if (Object.keys(wanted).length > 0) return inputRequired({ inputRequests: wanted });
      return text(`answered: ${Object.keys(responses).join(', ') || 'nothing (the client declared neither)'}`);
    },
  );
  server.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'A prompt that asks for its context (key "user_context") before it is given.' },
    async (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_context');
      if (typeof answer?.context !== 'string') {
        return inputRequired({
          inputRequests: { user_context: form('What context should the prompt use?', { context: { type: 'string' } }) },
        });
      }
      return {
        messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${answer.context}` } }],
      };
    },
  );
}
