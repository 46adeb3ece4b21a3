/**
 * Any other site: a 40-hex value next to an info-hash label ("Info hash", "Hash", "种子哈希",
 * "特征码", "Hash值" …). Only the element next to a label is read, never the whole text of the
 * page, and quotes, comments and side panels are left out.
 */
import { scanBlock } from './dom';
import type { PageEngine } from './page-types';

const ASIDE = new Set(['blockquote', 'aside', 'nav', 'footer']);
const ASIDE_NAME = /comment|quote|sidebar|related|similar|recommend/i;

export function isAside(element: Element): boolean {
  if (ASIDE.has(element.localName)) return true;
  // property reads, no string building: this runs for every element of a scanned page
  const { id, className } = element;
  return (id !== '' && ASIDE_NAME.test(id)) || (typeof className === 'string' && className !== '' && ASIDE_NAME.test(className));
}

export const generic: PageEngine = {
  id: 'generic',
  applies: () => true,
  read({ document }) {
    if (!document.body) return null;
    // Bounded to the first few thousand elements: the torrent's own facts come before long
    // descriptions and comments, and an unknown 2 MB page must not cost tens of milliseconds.
    const scan = scanBlock(document.body, { skip: isAside, budget: 6000 });
    const hash = scan.labelled[0];
    return hash ? { engine: 'generic', kind: 'details', hashes: [{ hash, source: 'label' }] } : null;
  },
};
