// The diagnostic tools the 2026-07-28 `server-stateless` scenario (SEP-2575)
// calls to exercise what a stateless server must and must not do.
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
