/** Helpers of the cross-seed job's figures (bench/crossseed-job-node.ts), apart so they are tested without daemons. */

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/**
 * Each torrent's own time in a paced run: from when it could start (the site moved on from the
 * previous one, and `gapMs` after the previous download reached the site; `start` for the first)
 * to when the site moved on from it (`movedOn`: an added one in the client stopped, another its outcome).
 */
export function perTorrentOverhead(start: number, movedOn: readonly number[], downloads: readonly number[], gapMs: number): number[] {
  return movedOn.map((at, index) => {
    const ready = index === 0 ? start : Math.max(movedOn[index - 1]!, downloads[index - 1]! + gapMs);
    return at - ready;
  });
}

/** The longest gap between the turns of a 0 ms timer chain while `work` runs: the event loop's longest blocking stretch. */
export async function longestBlock<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; longestMs: number }> {
  let running = true;
  let last = performance.now();
  let longestMs = 0;
  const tick = () => {
    const now = performance.now();
    longestMs = Math.max(longestMs, now - last);
    last = now;
    if (running) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const started = performance.now();
  last = started;
  const result = await work();
  const ms = performance.now() - started;
  running = false;
  longestMs = Math.max(longestMs, performance.now() - last);
  return { result, ms, longestMs };
}
