// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OWN_UI_ATTRIBUTE, watchPage } from '../../../utils/pages/navigation';

// The watcher's clock (its poll, debounce and maxWait timers, and Date.now) is the test's: time
// moves only when a test moves it, so "no call (yet)" is said at a known moment past every timer
// that could have made one, not after a guess at how late a loaded machine runs timers.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
/** The page's clock moves on by `ms`: every timer due by then has run, with what it set off. */
const wait = (ms: number) => vi.advanceTimersByTimeAsync(ms);
/** The clock moves on until `check` holds (at most 3 s), then by a quiet spell in which a second call would come. */
async function settle(check: () => boolean, quietMs = 150): Promise<void> {
  for (let waited = 0; !check() && waited < 3000; waited += 5) await wait(5);
  await wait(quietMs);
}
const fast = { debounceMs: 30, maxWaitMs: 120, pollMs: 10 };
let controller = new AbortController();
afterEach(() => {
  controller.abort();
  controller = new AbortController();
  document.body.innerHTML = '';
  vi.useRealTimers();
});

describe('watchPage', () => {
  it('notices history.pushState (which fires no event) by its URL check', async () => {
    let calls = 0;
    watchPage(() => calls++, controller.signal, fast);
    history.pushState({}, '', '/detail/2');
    await settle(() => calls > 0);
    expect(calls).toBe(1);
  });

  it('notices back/forward (popstate) and hash changes', async () => {
    let calls = 0;
    watchPage(() => calls++, controller.signal, { ...fast, pollMs: 60_000 }); // the timer cannot be what saw it
    history.replaceState({}, '', '/detail/3');
    window.dispatchEvent(new PopStateEvent('popstate'));
    await settle(() => calls > 0);
    expect(calls).toBe(1);
  });

  it('coalesces a burst of DOM changes into one call after the page goes quiet', async () => {
    let calls = 0;
    watchPage(() => calls++, controller.signal, { ...fast, debounceMs: 200, maxWaitMs: 1000 });
    for (let i = 0; i < 5; i++) document.body.append(document.createElement('div'));
    await wait(20);
    expect(calls).toBe(0); // still inside the debounce window
    await settle(() => calls > 0, 300);
    expect(calls).toBe(1);
  });

  it('notices a text node whose data the site rewrites (a lazily filled hash)', async () => {
    const cell = document.createElement('span');
    cell.append('加载中...');
    document.body.append(cell);
    await wait(10);
    let calls = 0;
    watchPage(() => calls++, controller.signal, fast);
    (cell.firstChild as Text).data = '1078cf414b2625a240b16392085d66580bb66f4d';
    await settle(() => calls > 0);
    expect(calls).toBe(1);
  });

  it('still calls while the page never stops changing (maxWait)', async () => {
    let calls = 0;
    // A change every 10 ms never leaves the 1 s quiet spell the debounce waits for: only maxWait
    // can call. Ticks until two calls came (a loaded machine runs timers late), not for a set time.
    watchPage(() => calls++, controller.signal, { ...fast, debounceMs: 1000 });
    const ticking = setInterval(() => document.body.append(document.createElement('span')), 10);
    await settle(() => calls >= 2, 0);
    clearInterval(ticking);
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it("ignores changes inside the extension's own UI", async () => {
    const host = document.createElement('div');
    host.setAttribute(OWN_UI_ATTRIBUTE, '');
    document.body.append(host);
    await wait(10);
    let calls = 0;
    watchPage(() => calls++, controller.signal, fast);
    host.append(document.createElement('p'));
    const another = document.createElement('div');
    another.setAttribute(OWN_UI_ATTRIBUTE, '');
    document.body.append(another);
    document.body.append(document.createElement('reseed-lens-panel')); // the in-page panel's host
    await wait(200);
    expect(calls).toBe(0);
    document.body.append(document.createElement('p'));
    await settle(() => calls > 0);
    expect(calls).toBe(1);
  });

  it('stops entirely once aborted', async () => {
    let calls = 0;
    watchPage(() => calls++, controller.signal, fast);
    document.body.append(document.createElement('div'));
    controller.abort();
    history.pushState({}, '', '/detail/4');
    await wait(200);
    expect(calls).toBe(0);
  });

  it('does nothing for an already aborted signal', async () => {
    let calls = 0;
    controller.abort();
    watchPage(() => calls++, controller.signal, fast);
    history.pushState({}, '', '/detail/5');
    document.body.append(document.createElement('div'));
    await wait(200);
    expect(calls).toBe(0);
  });
});
