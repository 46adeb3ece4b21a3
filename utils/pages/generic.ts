/**
 * Any other site: a 40-hex value next to an info-hash label ("Info hash", "Hash", "种子哈希",
 * "特征码", "Hash值" …). Only the element next to a label is read, never the whole text of the
 * page, and quotes, comments and side panels are left out.
 */
import { scanBlock } from './dom';
import type { PageEngine } from './types';

const ASIDE = new Set(['blockquote', 'aside', 'nav', 'footer']);
const ASIDE_NAME = /comment|quote|sidebar|related|similar|recommend/i;

export function isAside(element: Element): boolean {
  if (ASIDE.has(element.localName)) return true;
  const name = `${element.id} ${element.getAttribute('class') ?? ''}`;
  return name.length > 1 && ASIDE_NAME.test(name);
}

export const generic: PageEngine = {
  id: 'generic',
  applies: () => true,
  read({ document }) {
    if (!document.body) return null;
    const scan = scanBlock(document.body, { skip: isAside });
    const hash = scan.labelled[0];
    return hash ? { engine: 'generic', kind: 'details', hashes: [{ hash, source: 'label' }] } : null;
  },
};
