/**
 * Tell the content script when the page it read has changed: in-page navigation of single-page
 * sites (history.pushState / replaceState, back/forward) and blocks the page fills in later.
 *
 * A content script runs in an isolated world: patching `history.pushState` there would not see the
 * page's own calls. So: compare location.href on a cheap timer, listen to popstate/hashchange, and
 * observe DOM mutations; all of it debounced into one call.
 */

export interface WatchOptions {
  /** Quiet time before calling back after a change, in ms. */
  debounceMs?: number;
  /** Longest wait while the page keeps changing (a ticking clock must not starve the re-read). */
  maxWaitMs?: number;
  /** How often location.href is compared, in ms. */
  pollMs?: number;
}

/** Elements our own UI adds carry this attribute: their changes are not the page's. */
export const OWN_UI_ATTRIBUTE = 'data-reseed-lens';
/** Our UI: anything marked with the attribute, and the panel's host element. */
const OWN_UI = `[${OWN_UI_ATTRIBUTE}], reseed-lens-panel`;

export function watchPage(onChange: () => void, signal: AbortSignal, options: WatchOptions = {}): void {
  const { debounceMs = 250, maxWaitMs = 2000, pollMs = 500 } = options;
  if (signal.aborted) return;
  let href = location.href;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstChangeAt = 0;

  const fire = () => {
    timer = undefined;
    firstChangeAt = 0;
    if (!signal.aborted) onChange();
  };
  const changed = () => {
    if (signal.aborted) return;
    const now = Date.now();
    if (!firstChangeAt) firstChangeAt = now;
    if (timer !== undefined) clearTimeout(timer);
    // debounce, but never push the call later than maxWait after the first change
    timer = setTimeout(fire, Math.max(0, Math.min(debounceMs, firstChangeAt + maxWaitMs - now)));
  };
  const checkUrl = () => {
    if (location.href !== href) {
      href = location.href;
      changed();
    }
  };

  const poll = setInterval(checkUrl, pollMs);
  addEventListener('popstate', checkUrl);
  addEventListener('hashchange', checkUrl);
  const observer = new MutationObserver((records) => {
    if (records.some((record) => !isOwnUi(record))) changed();
  });
  // characterData too: a site may fill a lazy hash by setting a text node's data
  observer.observe(document.documentElement, { childList: true, characterData: true, subtree: true });

  signal.addEventListener(
    'abort',
    () => {
      clearInterval(poll);
      if (timer !== undefined) clearTimeout(timer);
      removeEventListener('popstate', checkUrl);
      removeEventListener('hashchange', checkUrl);
      observer.disconnect();
    },
    { once: true },
  );
}

function isOwnUi(record: MutationRecord): boolean {
  const mine = (node: Node) => node.nodeType === 1 && (node as Element).closest(OWN_UI) !== null;
  if (mine(record.target)) return true;
  const nodes = [...Array.from(record.addedNodes), ...Array.from(record.removedNodes)];
  return nodes.length > 0 && nodes.every(mine);
}
