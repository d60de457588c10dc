// `npm run mutation [-- FILE[:LINES]...]`: StrykerJS over each FILE (default:
// every file stryker.config.mjs maps to its tests; LINES such as 41-104 takes
// part of one), one file at a time against its
// own test files, then one line per file: its score and the mutants that
// survived (a rule broken and no test failing). Not part of `npm test`: a
// file takes from minutes to hours (docs/testing.md, "Mutation testing").
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { TARGETS, reportOf } from '../stryker.config.mjs';

const files = process.argv.slice(2);
for (const file of files) {
  if (!(file.split(':')[0] in TARGETS)) {
    console.error(
      `mcp-host mutation: ${file} is not mapped to its tests in stryker.config.mjs. Fix: add it to TARGETS there, with the test files that cover it.`,
    );
    process.exit(2);
  }
}

const lines = [];
let failed = false;
for (const file of files.length > 0 ? files : Object.keys(TARGETS)) {
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, MUTATE: file },
  });
  if (run.status !== 0) {
    failed = true;
    lines.push(`${file}: stryker exited ${run.status ?? run.signal}`);
    continue;
  }
  lines.push(summary(file));
}
console.log(`\nmutation scores:\n${lines.join('\n')}`);
process.exit(failed ? 1 : 0);

/** `FILE: score S% (K of N detected); survived: line:column mutator "replacement", …` from the file's JSON report. */
function summary(file) {
  const report = `${reportOf(file)}.json`;
  const { files } = JSON.parse(readFileSync(report, 'utf8'));
  const mutants = Object.values(files).flatMap((entry) => entry.mutants);
  // As Stryker scores: a mutant that does not compile or run is no test's to catch.
  const valid = mutants.filter((mutant) => !['CompileError', 'RuntimeError', 'Ignored'].includes(mutant.status));
  const detected = valid.filter((mutant) => ['Killed', 'Timeout'].includes(mutant.status));
  const survived = valid
    .filter((mutant) => !['Killed', 'Timeout'].includes(mutant.status))
    .map(
      ({ location, mutatorName, replacement, status }) =>
        `${location.start.line}:${location.start.column} ${mutatorName} ${JSON.stringify(replacement)} (${status})`,
    );
  const score = valid.length === 0 ? 100 : (100 * detected.length) / valid.length;
  return `${file}: ${score.toFixed(1)}% (${detected.length} of ${valid.length} detected)${
    survived.length > 0 ? `; not detected:\n  ${survived.join('\n  ')}` : ''
  }`;
}
