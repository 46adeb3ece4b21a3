/**
 * The retry policy of utils/clients/steady.ts on its own (the live behaviour over real daemons is
 * steady-live.test.ts): which failures are asked again, how often, after which waits.
 */
import { describe, expect, it } from 'vitest';
import { ClientError, CLIENT_ERROR_KINDS, type ClientErrorKind } from '../../../utils/clients/client-errors';
import { CLIENT_RETRY_DELAYS_MS, isTransientClientError, retried } from '../../../utils/clients/steady';

/** An attempt that fails with `kinds` in turn, then answers 'ok'; the waits asked for are noted. */
function script(kinds: ClientErrorKind[]) {
  const waits: number[] = [];
  let calls = 0;
  const attempt = async () => {
    const kind = kinds[calls++];
    if (kind) throw new ClientError({ kind, detail: `attempt ${calls}` });
    return 'ok';
  };
  const wait = async (ms: number) => {
    waits.push(ms);
  };
  return { attempt, wait, waits, calls: () => calls };
}

describe('retried', () => {
  it('asks a dropped connection or a 5xx again after each wait, then answers', async () => {
    const s = script(['unreachable', 'server']);
    await expect(retried(s.attempt, { delaysMs: [10, 20], wait: s.wait })).resolves.toBe('ok');
    expect(s.waits).toEqual([10, 20]);
    expect(s.calls()).toBe(3);
  });

  it('gives up after the last wait with the last failure', async () => {
    const s = script(['unreachable', 'unreachable', 'server', 'unreachable']);
    const error = await retried(s.attempt, { delaysMs: [10, 20], wait: s.wait }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'server', detail: 'attempt 3' });
    expect(s.calls()).toBe(3);
  });

  it('asks a timeout again once only', async () => {
    const once = script(['timeout']);
    await expect(retried(once.attempt, { delaysMs: [10, 20], wait: once.wait })).resolves.toBe('ok');
    const twice = script(['timeout', 'timeout']);
    await expect(retried(twice.attempt, { delaysMs: [10, 20], wait: twice.wait })).rejects.toMatchObject({ kind: 'timeout', detail: 'attempt 2' });
    expect(twice.calls()).toBe(2);
    // A reset between two timeouts does not earn the second timeout another try.
    const mixed = script(['timeout', 'unreachable', 'timeout']);
    await expect(retried(mixed.attempt, { delaysMs: [10, 20, 30], wait: mixed.wait })).rejects.toMatchObject({ kind: 'timeout', detail: 'attempt 3' });
  });

  it.each(CLIENT_ERROR_KINDS.filter((kind) => !['unreachable', 'timeout', 'server'].includes(kind)))('never asks again after %s', async (kind) => {
    const s = script([kind]);
    await expect(retried(s.attempt, { delaysMs: [10, 20], wait: s.wait })).rejects.toMatchObject({ kind });
    expect(s.calls()).toBe(1);
    expect(s.waits).toEqual([]);
  });

  it('never asks again after what is not a client error (a bug is not a hiccup)', async () => {
    let calls = 0;
    const error = await retried(
      async () => {
        calls++;
        throw new TypeError('undefined is not a function');
      },
      { delaysMs: [1, 1] },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect(calls).toBe(1);
    expect(isTransientClientError(error)).toBe(false);
  });

  it('waits a few seconds in all by default, not minutes', () => {
    const total = CLIENT_RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0);
    expect(CLIENT_RETRY_DELAYS_MS.length).toBeGreaterThanOrEqual(1);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(5_000);
  });
});
