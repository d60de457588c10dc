/**
 * Imported first by the bench processes whose HTTP clients make tens of
 * thousands of requests. An SDK client transport passes its one
 * `AbortSignal` to every request, and Node's `fetch` (undici) adds an
 * `abort` listener to that signal for each request, dropped only once the
 * request is garbage-collected. Past 1,500 listeners Node prints a
 * `MaxListenersExceededWarning` for every request until a collection runs:
 * 56,579 lines in one `npm run bench`, burying its figures. It costs the
 * client the same whichever server it calls, so those warnings are counted
 * instead, and the count is printed once at exit. Every other warning is
 * printed as Node prints it.
 */
const printers = process.listeners('warning');
process.removeAllListeners('warning');
let held = 0;
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning' && warning.message.includes('[AbortSignal]')) {
    held++;
    return;
  }
  for (const print of printers) print(warning);
});
process.on('exit', () => {
  if (held > 0) {
    process.stderr.write(
      `(${held} MaxListenersExceededWarning about an SDK HTTP client's AbortSignal not printed: bench/abort-signal-warnings.ts says why)\n`,
    );
  }
});
