/**
 * Mounts the panel in a CLOSED shadow root: the tracker's own scripts cannot reach into it to
 * learn which other sites the user is on. Only an empty host element is visible to the page.
 */
import { render } from 'preact';
import { Panel, type PanelProps } from '../../components/Panel';
import type { TabView } from '../../utils/messages';
import css from '../../components/base.css?inline';
import panelCss from './panel.css?inline';

export interface MountedPanel {
  update(view: TabView): void;
  remove(): void;
}

/** Whether the page looks dark: the first opaque background from body up to the root. */
function pageIsDark(): boolean {
  for (const element of [document.body, document.documentElement]) {
    if (!element) continue;
    const match = getComputedStyle(element).backgroundColor.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?/);
    if (!match || match[4] === '0') continue;
    const [r, g, b] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 110;
  }
  return matchMedia('(prefers-color-scheme: dark)').matches;
}

export function mountPanel(anchor: Element | undefined, props: Omit<PanelProps, 'view' | 'initiallyOpen'>): MountedPanel {
  const host = document.createElement('reseed-lens-panel');
  // Inline next to the torrent's info when we know where that is; otherwise a small corner badge.
  host.style.cssText = anchor
    ? 'all:initial;display:block;margin:8px 0'
    : 'all:initial;position:fixed;left:12px;bottom:12px;z-index:2147483000;max-width:min(460px,calc(100vw - 24px))';
  const shadow = host.attachShadow({ mode: 'closed' });
  const style = document.createElement('style');
  style.textContent = css + panelCss;
  const root = document.createElement('div');
  root.className = `rl-root ${pageIsDark() ? 'dark' : ''} ${anchor ? 'inline' : 'floating'}`;
  shadow.append(style, root);
  if (anchor) anchor.insertAdjacentElement('afterend', host);
  else document.documentElement.append(host);
  return {
    update(view) {
      render(<Panel view={view} initiallyOpen={!!anchor} {...props} />, root);
    },
    remove() {
      render(null, root);
      host.remove();
    },
  };
}
