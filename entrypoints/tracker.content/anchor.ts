/**
 * Where the panel goes on a details page: right after the torrent's title, which every engine
 * shows above its info block, so the panel sits by the info and covers none of the page's controls.
 * List pages and unknown layouts get the small corner badge instead.
 */
import type { PageReading } from '../../utils/pages/page-types';

const TITLE_SELECTORS = [
  'h1#top', // NexusPHP (and TTG, HDCity)
  'h1.torrent__name', // Unit3D
  '#content .header h2', // Gazelle
  '.thin .header h2',
];

export function panelAnchor(reading: PageReading | null, document: Document): Element | undefined {
  if (!reading || reading.kind !== 'details') return undefined;
  for (const selector of TITLE_SELECTORS) {
    const title = document.querySelector(selector);
    if (title && title.getBoundingClientRect().height > 0) return title;
  }
  return undefined;
}
