import { formatProblem, problemsOf } from '../../host/errors.js';
import { validateConfig } from '../../host/config/validate.js';

/** The problems `validateConfig` finds in a config, as the host words them (none: an empty list). */
export function configProblems(config: Record<string, unknown>): string[] {
  try {
    validateConfig(config, '/srv/mcp-host.config.js');
    return [];
  } catch (error) {
    return problemsOf(error, '').map(formatProblem);
  }
}
