// The default config: `npm start` serves the example plugins over stdio.
// Each entry names an installed package (here, npm workspaces under plugins/).
import { fileURLToPath } from 'node:url';

/** @type {import('mcp-host').HostConfig} */
export default {
  name: 'mcp-host-examples',
  instructions: 'Notes kept in a JSON file (notes.*) and time-zone tools (clock.*).',
  plugins: [
    // Written with the MCP SDK v2; mounted under its manifest prefix "notes".
    { package: '@mcp-host/notes', options: { file: fileURLToPath(new URL('./.tmp/notes.json', import.meta.url)) } },
    // Written with the MCP SDK v1; mounted under "clock".
    { package: '@mcp-host/clock', prefix: 'clock' },
  ],
};
