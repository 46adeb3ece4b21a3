/**
 * Polling: the one way the e2e tests, their harness and the client tests wait for something to
 * become true. `until` is `waitFor` that fails loudly.
 */

/** Reads until `done` holds or the time is up; returns the last value either way (the caller asserts on it). */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Reads until `done` holds (a read that fails counts as not yet); throws, naming `what` and the last value, when the time is up. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 15_000, intervalMs = 100): Promise<T> {
  const holds = (value: T | undefined): value is T => value !== undefined && done(value);
  const value = await waitFor(() => read().catch(() => undefined), holds, timeoutMs, intervalMs);
  if (!holds(value)) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
  return value;
}
