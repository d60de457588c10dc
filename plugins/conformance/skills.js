// The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`) as the
// conformance suite's `sep-2640-*` scenarios judge it: one skill, served by
// the SDK's own skills catalog (`skills/list`, `skills/get`, its files as
// `skill://` resources, and `resources/directory/read` over its folders, a
// subfolder included). The catalog is built once, when the plugin is
// imported, and attached to every server `create` makes.
import { SkillsExtension, memorySkillFiles } from '@modelcontextprotocol/server/ext/skills';

const NAME = 'conformance-checks';
const DESCRIPTION = 'Run the official MCP conformance suite against a server, directly and through mcp-host.';

const FILES = {
  [`${NAME}/SKILL.md`]: `---
name: ${NAME}
description: ${DESCRIPTION}
---
Run \`npm run conformance\` for the host, or \`npm run conformance -- --url URL\` for any server: a scenario that
passes directly must pass mounted flat behind the host. See references/SCENARIOS.md for what each run covers.
`,
  [`${NAME}/references/SCENARIOS.md`]: `The suite's server scenarios, by protocol revision (--requirements), and its
extension scenarios (tasks, skills), run one at a time with --scenario.
`,
};

/** The catalog every server of this plugin serves; `attach` it before connecting. */
export const SKILLS = await SkillsExtension.load(memorySkillFiles(FILES));
