/**
 * The middle of a bench's samples (of two middles, their mean): one load
 * spike on a shared machine moves a mean, not a median.
 */
export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
