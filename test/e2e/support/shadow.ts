/**
 * Reaching into the in-page panel's CLOSED shadow root from a test, the only way there is: through
 * the browser's automation protocol, which no page script has — CDP's pierced DOM in Chromium,
 * WebDriver BiDi's reference to the root in Firefox.
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import type { ElementHandle, Page as PuppeteerPage } from 'puppeteer-core';
import type { HarnessPage } from '../harness/index.ts';

type DomNode = { localName: string; backendNodeId: number; children?: DomNode[]; shadowRoots?: DomNode[] };

/**
 * Calls `fn(shadowRoot, arg)` inside the panel and returns its (JSON) result; null when the page
 * has no panel. `fn` is sent as source text: it may use only its arguments.
 */
export async function inPanel<R, A = undefined>(page: HarnessPage, fn: (root: ShadowRoot, arg: A) => R, arg?: A): Promise<R | null> {
  if (page.kind === 'chromium') {
    const raw = page.raw as PlaywrightPage;
    const session = await raw.context().newCDPSession(raw);
    try {
      const { root } = (await session.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
      const find = (node: DomNode): DomNode | undefined =>
        node.localName === 'reseed-lens-panel' ? node : [...(node.children ?? []), ...(node.shadowRoots ?? [])].map(find).find(Boolean);
      const shadow = find(root)?.shadowRoots?.[0];
      if (!shadow) return null;
      const { object } = await session.send('DOM.resolveNode', { backendNodeId: shadow.backendNodeId });
      const { result, exceptionDetails } = await session.send('Runtime.callFunctionOn', {
        objectId: object.objectId!,
        // tsx may wrap named functions in __name(), which exists only in Node.
        functionDeclaration: `function (arg) { const __name = (target) => target; return (${fn.toString()})(this, arg); }`,
        arguments: [{ value: arg ?? null }],
        returnByValue: true,
      });
      if (exceptionDetails) throw new Error(`in the shadow root: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
      return result.value as R;
    } finally {
      await session.detach();
    }
  }
  const raw = page.raw as PuppeteerPage;
  const host = (await raw.$('reseed-lens-panel')) as (ElementHandle & { remoteValue(): { value?: { shadowRoot?: unknown } }; realm: unknown }) | null;
  const shadowRef = host?.remoteValue().value?.shadowRoot;
  if (!host || !shadowRef) return null;
  // A handle to the node BiDi serialised: Puppeteer's own element-handle class, reached through the host's.
  const shadow = (host.constructor as unknown as { from(value: unknown, realm: unknown): ElementHandle }).from(shadowRef, host.realm);
  const call = shadow.evaluate as unknown as (fn: (root: ShadowRoot, arg: A) => R, arg?: A) => Promise<R>;
  return call.call(shadow, fn, arg);
}
