/** Small pieces both browser adapters use. */
import type { ExtensionApi, HarnessPage } from './types.ts';

/**
 * Source text for evaluating `fn(...args)` in a page, wrapped so that it is awaited. Built here and
 * sent as a string because extension pages' CSP forbids eval() inside the page, and because tsx/esbuild
 * may wrap functions in `__name(...)`, a helper that exists only in Node; the stub makes that harmless.
 */
export function callExpression(fn: (...args: never[]) => unknown, args: string[]): string {
  return `(async () => { const __name = (target) => target; return await (${fn.toString()})(${args.join(', ')}); })()`;
}

export function jsonArg(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

type EvaluateInExtension = <R, A = undefined>(fn: (api: ExtensionApi, arg: A) => R | Promise<R>, arg?: A) => Promise<Awaited<R>>;

/**
 * Finds the extension-side tab id of the tab whose URL contains `urlSubstring`: by URL when the
 * extension can see URLs; otherwise by focusing that tab and asking for the active tab.
 */
export async function resolveTabId(
  urlSubstring: string,
  openPages: () => Promise<HarnessPage[]>,
  evaluateInExtension: EvaluateInExtension,
): Promise<number> {
  const tabs = await evaluateInExtension((api) =>
    api.tabs.query({}).then((all) => all.map((tab) => ({ id: tab.id, url: tab.url ?? (tab as { pendingUrl?: string }).pendingUrl }))),
  );
  const byUrl = tabs.filter((tab) => tab.url?.includes(urlSubstring));
  if (byUrl.length > 1) throw new Error(`tabIdOf(${JSON.stringify(urlSubstring)}): ${byUrl.length} tabs match: ${byUrl.map((t) => t.url).join(', ')}`);
  if (byUrl[0]?.id !== undefined) return byUrl[0].id;

  const matches: HarnessPage[] = [];
  for (const page of await openPages()) {
    if ((await page.url().catch(() => '')).includes(urlSubstring)) matches.push(page);
  }
  if (matches.length !== 1) {
    throw new Error(`tabIdOf(${JSON.stringify(urlSubstring)}): ${matches.length} open pages match (need exactly one)`);
  }
  await matches[0]!.bringToFront();
  const active = await evaluateInExtension((api) => api.tabs.query({ active: true, lastFocusedWindow: true }).then((found) => found.map((tab) => tab.id)));
  if (active.length !== 1 || active[0] === undefined) throw new Error(`tabIdOf(${JSON.stringify(urlSubstring)}): could not identify the active tab`);
  return active[0];
}
