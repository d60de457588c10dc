// Mutation testing (docs/testing.md, "Mutation testing"): StrykerJS breaks one
// rule of a security-relevant file at a time and runs the compiled test files
// that cover that file; a mutant no test notices is a rule no test exercises.
//
// The suite's tests drive the host as a child process, so Stryker's per-test
// coverage (collected in the test process) cannot see which mutants a test
// runs: every mutant runs every test file mapped to its source file below, and
// the file to mutate is chosen with MUTATE (scripts/mutation.js runs them one
// at a time). A file with a rules test (test/rules/NAME.test.ts: the module's
// functions called in-process) is run against it alone, as a plain node script:
// a second or so per mutant instead of tens; MUTATION_TESTS=suite runs the
// suite's test files instead.

/** Each file mutated, with the compiled test files (dist/test/NAME.test.js) that cover it. */
export const TARGETS = {
  'host/serve/oauth-resource-server.ts': ['oauth', 'oauth-verification'],
  'host/serve/oauth-settings.ts': ['oauth', 'oauth-verification', 'config'],
  'host/serve/jwt-access-token.ts': ['oauth-verification', 'oauth'],
  'host/serve/token-introspection.ts': ['oauth-verification', 'oauth'],
  'host/serve/http-auth.ts': ['http-security', 'oauth', 'access'],
  'host/catalogue/access-rules.ts': ['access'],
  'host/catalogue/curation.ts': ['curation', 'curation-spelling'],
  'host/catalogue/uri-normal-form.ts': ['curation-spelling', 'curation'],
  'host/proxy/tool-discovery.ts': ['discovery', 'discovery-attacks'],
  'host/proxy/call-limits.ts': ['call-limits'],
  'host/proxy/audited.ts': ['access'],
  'host/cluster/peer-auth.ts': ['token-seal', 'forwarding-stamp', 'cluster-trust'],
  'host/cluster/signed-record.ts': ['cluster-trust', 'cluster'],
  'host/mounts/isolation/permissions.ts': ['process-isolation', 'worker-isolation'],
  'host/mounts/isolation/readable-paths.ts': ['process-isolation'],
  'host/mounts/isolation/memory-watch.ts': ['worker-isolation', 'process-isolation'],
  'host/mounts/upstream-authorization.ts': ['upstream-auth', 'upstream-attacks'],
  'host/pins/lock.ts': ['pins'],
  'host/mounts/fault-attribution.ts': ['plugin-blame', 'plugin-faults'],
};

/** The in-process rules test (dist/test/rules/NAME.test.js) of each file that has one. */
export const RULES = {
  'host/catalogue/access-rules.ts': 'access-rules',
  'host/catalogue/uri-normal-form.ts': 'uri-normal-form',
  'host/serve/token-introspection.ts': 'token-introspection',
  'host/cluster/signed-record.ts': 'signed-record',
  'host/serve/jwt-access-token.ts': 'jwt-access-token',
  'host/cluster/peer-auth.ts': 'peer-auth',
  'host/serve/http-auth.ts': 'http-auth',
  'host/pins/lock.ts': 'lock',
  'host/mounts/isolation/permissions.ts': 'permissions',
  'host/mounts/isolation/memory-watch.ts': 'memory-watch',
  'host/serve/oauth-settings.ts': 'oauth-settings',
  'host/catalogue/curation.ts': 'curation',
  'host/mounts/isolation/readable-paths.ts': 'readable-paths',
  'host/serve/oauth-resource-server.ts': 'oauth-resource-server',
  'host/proxy/audited.ts': 'audited',
  'host/mounts/upstream-authorization.ts': 'upstream-authorization',
  'host/proxy/call-limits.ts': 'call-limits',
  'host/proxy/tool-discovery.ts': 'tool-discovery',
  'host/mounts/fault-attribution.ts': 'fault-attribution',
};

// MUTATE is a file, or part of one as Stryker takes it: host/catalogue/access-rules.ts:41-104 (lines 41 to 104).
const chosen = process.env.MUTATE ?? 'host/catalogue/access-rules.ts';
const [file] = chosen.split(':');
const tests = TARGETS[file];
const rules = process.env.MUTATION_TESTS === 'suite' ? undefined : RULES[file];
if (!tests) {
  throw new Error(
    `stryker.config.mjs: MUTATE=${chosen} is not a file mapped to its tests. Fix: use one of ${Object.keys(TARGETS).join(', ')}, or add it to TARGETS.`,
  );
}
/** Where this file's reports go: one pair per file (and range), so that runs over several files keep each. */
export const reportOf = (target) =>
  `reports/mutation/${target
    .replace(/^host\//, '')
    .replace(/\.ts/, '')
    .replaceAll('/', '-')
    .replace(':', '@')}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  mutate: [chosen],
  // Stryker's tap runner counts as coverage only what runs in the test process, where host code runs in
  // the host's child processes: it would report most mutants "no coverage". The command runner runs the
  // files whole, each mutant switched on by __STRYKER_ACTIVE_MUTANT__, which the host inherits.
  testRunner: 'command',
  commandRunner: {
    // A rules test is a tap file node runs as it is (it exits non-zero on a failed assertion), without tap's runner.
    command: rules
      ? `node dist/test/rules/${rules}.test.js`
      : `npx tap --disable-coverage --bail ${tests.map((name) => `dist/test/${name}.test.js`).join(' ')}`,
  },
  coverageAnalysis: 'off',
  // The sandbox gets its own build: the instrumented file is compiled with the rest, unchecked (it is not valid TypeScript for tsc's checks).
  // A rules test needs only itself and what it imports compiled (tsconfig.mutation.json): seconds, not minutes.
  buildCommand: `npx tsc -p ${rules ? 'tsconfig.mutation.json' : 'tsconfig.json'}`,
  disableTypeChecks: 'host/**/*.ts',
  ignorePatterns: ['dist', '.tmp', '.tap', 'coverage', 'reports'],
  // The machine is shared: one mutant at a time (tap runs the mutant's test files two at a time, as in npm test).
  concurrency: 1,
  timeoutMS: rules ? 20_000 : 60_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `${reportOf(chosen)}.html` },
  jsonReporter: { fileName: `${reportOf(chosen)}.json` },
  clearTextReporter: { allowColor: false, logTests: false },
  tempDirName: '.stryker-tmp',
};
