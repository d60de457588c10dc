// The host `npm run conformance` judges: the conformance plugin mounted flat,
// so the suite finds every tool, resource and prompt under the name its
// scenario expects. Served over HTTP with `--http` (scripts/conformance.sh).
/** @type {import('mcp-host').HostConfig} */
export default {
  name: 'mcp-host-conformance',
  plugins: [{ package: '@mcp-host/conformance', flat: true }],
  reload: { watch: false },
};
