// The diagnostic tools the 2026-07-28 `server-stateless` scenario (SEP-2575)
// calls to exercise what a stateless server must and must not do, and the
// hooks it calls to change the tool and prompt lists while a
// `subscriptions/listen` stream is open (a server with `listChanged` SHOULD
// tell that stream).
import { inputRequired } from '@modelcontextprotocol/server';

/** @typedef {import('@modelcontextprotocol/server').McpServer} McpServer */

/** @param {McpServer} server */
export function registerStatelessDiagnostics(server) {
  server.registerTool(
    'test_missing_capability',
    {
      description:
        'Needs sampling: a client that did not declare it is refused with MissingRequiredClientCapabilityError (-32021).',
    },
    async () =>
      inputRequired({
        inputRequests: {
          needed: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
            maxTokens: 10,
          }),
        },
      }),
  );
  server.registerTool(
    'test_streaming_elicitation',
    { description: 'Asks for a name by input_required: its response stream carries no request of its own.' },
    async (ctx) => {
      const answered = ctx.mcpReq.inputResponses?.name;
      if (answered) return { content: [{ type: 'text', text: 'thanks' }] };
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          }),
        },
      });
    },
  );
  registerListChangeTriggers(server);
  server.registerTool(
    'test_logging_tool',
    { description: 'Logs at info while it runs: a client that set no log level gets none of it.' },
    async (ctx) => {
      await ctx.mcpReq.log('info', 'test_logging_tool started');
      await ctx.mcpReq.log('info', 'test_logging_tool finished');
      return { content: [{ type: 'text', text: 'logged' }] };
    },
  );
}

/**
 * `test_trigger_tool_change` and `test_trigger_prompt_change`: each adds an
 * item to its list, or removes the one it added, so the list changes and the
 * SDK announces it (`tools/list_changed`, `prompts/list_changed`) to this
 * server's client: the host, which tells its own listen streams.
 * @param {McpServer} server
 */
function registerListChangeTriggers(server) {
  const text = (value) => ({ content: [{ type: 'text', text: value }] });
  const triggers = [
    {
      kind: 'tool',
      add: () =>
        server.registerTool('test_triggered_tool', { description: 'Added by a trigger.' }, async () =>
          text('triggered'),
        ),
    },
    {
      kind: 'prompt',
      add: () =>
        server.registerPrompt('test_triggered_prompt', { description: 'Added by a trigger.' }, () => ({
          messages: [{ role: 'user', content: { type: 'text', text: 'triggered' } }],
        })),
    },
  ];
  for (const { kind, add } of triggers) {
    /** @type {{ remove(): void } | undefined} */
    let added;
    server.registerTool(
      `test_trigger_${kind}_change`,
      { description: `Adds the ${kind} test_triggered_${kind}, or removes it: the ${kind} list changes.` },
      async () => {
        if (added) {
          added.remove();
          added = undefined;
          return text(`removed test_triggered_${kind}`);
        }
        added = add();
        return text(`added test_triggered_${kind}`);
      },
    );
  }
}
