// Bundled into a Chromium page by test/e2e/harness/bench-browser.test.ts (via bench/browser.ts).
import { h, render } from 'preact';

export function countLinks(selector: string): { links: number; chrome: boolean } {
  return { links: document.querySelectorAll(selector).length, chrome: navigator.userAgent.includes('Chrome/') };
}

/** Renders with Preact from node_modules, to prove the bundle resolves the project's dependencies. */
export default function renderGreeting(name: string): string | null {
  render(h('p', { id: 'greeting' }, `hello ${name}`), document.body);
  return document.querySelector('#greeting')?.textContent ?? null;
}
