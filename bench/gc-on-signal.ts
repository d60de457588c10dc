/**
 * Preloaded into the soak's host (`node --expose-gc --import`): a full GC on
 * SIGUSR2. With `--trace-gc` the soak reads the live heap it leaves, at the
 * moments it chooses (each quarter of the run) rather than whenever V8 next
 * happens to collect, which in a short run may be never. Bench-only: the host
 * itself neither exposes nor calls gc.
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) process.on('SIGUSR2', () => gc());
