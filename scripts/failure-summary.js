// Run by `npm test` after tap, whatever tap's verdict: repeats each failed
// assertion, with the file it is in and tap's own diagnosis under it, as the
// last thing the suite prints. A CI log is often kept only as its tail, which
// is the coverage table; without this a red run there names no test.
// Reads tap's saved results (.tap/test-results/**/*.tap).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const RESULTS = '.tap/test-results';
/** Lines of a failure's diagnosis repeated; the whole is earlier in the log. */
const DIAGNOSIS_LINES = 12;

function resultFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // tap did not get as far as running a file
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return resultFiles(path);
    return entry.name.endsWith('.tap') ? [path] : [];
  });
}

/** The failed assertions of one file, each with the head of the YAML block tap writes under it. */
function failuresIn(text) {
  const lines = text.split('\n');
  const failures = [];
  lines.forEach((line, index) => {
    if (!/^\s*not ok /.test(line) || /#\s*(TODO|SKIP)/i.test(line)) return;
    const diagnosis = [];
    for (const next of lines.slice(index + 1)) {
      if (/^\s*\.\.\.$/.test(next) || diagnosis.length === DIAGNOSIS_LINES) break;
      if (!/^\s*---$/.test(next)) diagnosis.push(next);
    }
    failures.push([line, ...diagnosis].join('\n'));
  });
  return failures;
}

const failed = resultFiles(RESULTS)
  .map((file) => ({
    file: relative(RESULTS, file).replace(/\.tap$/, ''),
    failures: failuresIn(readFileSync(file, 'utf8')),
  }))
  .filter(({ failures }) => failures.length > 0);

if (failed.length === 0) {
  console.log('failed tests: none');
} else {
  console.log(`failed tests: ${failed.length} file(s)`);
  for (const { file, failures } of failed) console.log(`\n# ${file}\n${failures.join('\n')}`);
}
