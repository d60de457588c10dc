/**
 * Whether `promise` settles within `ms`: true when it resolves in time,
 * false when the time runs out first (it rejects if the promise does). The
 * timer is cleared either way, so waiting never keeps the process alive.
 */
export function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
