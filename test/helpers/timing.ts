/**
 * The suite's timings, in one place. Each bounds an event (a line logged, a
 * process gone, an upstream connected): the test goes on as soon as the
 * event comes, and the bound is only how long it waits before failing. So
 * they are generous, sized for a loaded 2-core machine; a slower one
 * scales them all with MCP_HOST_TEST_TIME_SCALE (e.g. 3).
 */
const SCALE = Number(process.env.MCP_HOST_TEST_TIME_SCALE ?? '1') || 1;

const scaled = (ms: number): number => Math.round(ms * SCALE);

/** How long a test waits for something that happens by itself: a log line, a notification, a file, an answer. */
export const EVENT_MS = scaled(20_000);

/**
 * What a test gives its host's upstreams and plugins to start
 * (`upstreams.startTimeoutMs`): a healthy one starts well within it on a
 * loaded machine, and one that never does holds the command this long.
 */
export const START_MS = scaled(10_000);

/** How long a process told to end (SIGTERM, or its stdin closed) may take to be gone. */
export const EXIT_MS = scaled(10_000);
