/**
 * Row marks on a list page ("In your client", "Can cross-seed"), only ever drawn from what the
 * background sends, and it sends them only for sites where the user turned marks on, told that the
 * site's own scripts can read them. Plain elements in the page (the user chose that), themable with
 * --reseed-lens-in-client / --reseed-lens-can-cross-seed. Kept tiny: this script has a size budget.
 */
import { browser } from 'wxt/browser';
import { listRowElements } from '../../utils/pages';

const TAG = 'reseed-lens-mark';

/** Marks each named row (by torrent id) beside its title; every earlier mark goes first. */
export function markRows(marks: Record<string, 'i' | 'c'>, engine: string | undefined): void {
  for (const old of document.querySelectorAll(TAG)) old.remove();
  if (!engine) return;
  for (const { id, link } of listRowElements({ url: new URL(location.href), document, fetch }, engine)) {
    const can = marks[id] === 'c';
    if (!link || !marks[id]) continue;
    const mark = document.createElement(TAG);
    mark.textContent = browser.i18n.getMessage(can ? 'markCanCrossSeed' : 'markInClient');
    mark.style.cssText = `margin:0 .4em;padding:0 .4em;border-radius:3px;font-size:11px;white-space:nowrap;color:#fff;background:var(--reseed-lens-${can ? 'can-cross-seed,#1a7f37' : 'in-client,#0969da'})`;
    link.after(mark);
  }
}
