/**
 * Importing a plugin package's entry and checking its default export, the
 * plugin definition (DESIGN.md, "The plugin package contract"): an object
 * with a `create` function and nothing else; dispatcher-level keys refused,
 * naming where they belong.
 */
import { describeThrown, HostError, ProblemsError, type Problem } from '../errors.js';
import { isDispatcherLevelKey, misplacedDispatcherKeyProblem } from '../config/dispatcher-keys.js';
import { describeValue, endSentence, pluginWhere, unknownKeyProblem } from '../config/problem-wording.js';
import { importFresh } from '../fresh-import.js';
import type { PluginDefinition } from '../plugin.js';
import type { InProcessSpec } from './types.js';
import { isPlainObject } from '../plain-object.js';

const DEFINITION_KEYS: readonly (keyof PluginDefinition)[] = ['create'];
const EXAMPLE = 'export default definePlugin({ create({ options, logger }) { …; return server; } })';

/**
 * Import `spec.entryFile` and check its default export. Code is imported
 * fresh per `importTag` (with the package's own files, see fresh-import.ts):
 * pass the same tag to reuse the loaded code, a new one to load what is on
 * disk now — for instance the spec's fingerprint, which changes when the
 * package is upgraded. Throws a HostError or ProblemsError naming the plugin.
 */
export async function loadDefinition(spec: InProcessSpec, importTag: string): Promise<PluginDefinition> {
  const plugin = pluginWhere(spec.path, spec.label);
  let module: Record<string, unknown>;
  try {
    module = await importFresh(spec.entryFile, importTag, spec.packageDir, { inPlace: true });
  } catch (error) {
    throw new HostError(
      {
        where: plugin,
        what: `its entry ${spec.entryFile} failed to load: ${endSentence(describeThrown(error))}`,
        fix: `fix or reinstall the plugin (npm install ${spec.packageName}); the error is in its code, not in the host config.`,
      },
      { cause: error },
    );
  }

  const definition = module.default;
  if (definition === undefined) {
    throw new HostError({
      where: plugin,
      what: `its entry ${spec.entryFile} has no default export.`,
      fix: `export the plugin definition: ${EXAMPLE}.`,
    });
  }
  if (!isPlainObject(definition)) {
    throw new HostError({
      where: `${plugin}: default export`,
      what: `expected a plugin definition object with a create function, got ${describeValue(definition)}.`,
      fix:
        typeof definition === 'function'
          ? 'export default { create: yourFunction }, or use definePlugin({ create }).'
          : `${EXAMPLE}.`,
    });
  }

  const problems: Problem[] = [];
  for (const key of Object.keys(definition)) {
    if (isDispatcherLevelKey(key)) {
      problems.push(
        misplacedDispatcherKeyProblem(key, `${plugin}: definition.${key}`, `the definition of "${spec.label}"`),
      );
    } else if (!(DEFINITION_KEYS as readonly string[]).includes(key)) {
      problems.push(unknownKeyProblem(`${plugin}: definition.${key}`, key, DEFINITION_KEYS));
    }
  }
  if (typeof definition.create !== 'function') {
    problems.push({
      where: `${plugin}: definition.create`,
      what: `expected a function that returns an McpServer or Server, got ${describeValue(definition.create)}.`,
      fix: `${EXAMPLE}.`,
    });
  }
  if (problems.length > 0) throw new ProblemsError(problems);
  return definition as unknown as PluginDefinition;
}
