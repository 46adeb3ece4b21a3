/**
 * Mounts the panel in a CLOSED shadow root: the tracker's own scripts cannot reach into it to
 * learn which other sites the user is on. Only an empty host element is visible to the page.
 */
import { render } from 'preact';
import { Panel, type PanelProps } from '../../features/lookup/ui/Panel';
import type { PageCrossSeed } from '../../features/cross-seed/cross-seed.messages';
import type { PageView } from '../../features/lookup/lookup.messages';
import css from '../../components/base.css?inline';
import panelCss from './panel.css?inline';

export interface MountedPanel {
  update(view: PageView, crossSeeds?: readonly PageCrossSeed[]): void;
  remove(): void;
}

/** Relative luminance (0–255) of an opaque CSS colour, or undefined when it is transparent. */
function luminance(color: string): number | undefined {
  const match = color.match(/[\d.]+/g);
  if (!match || match[3] === '0') return undefined;
  const [r, g, b] = match.map(Number) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Whether the page looks dark: its first opaque background from body up, else light text on it. */
function pageIsDark(): boolean {
  for (const element of [document.body, document.documentElement]) {
    const background = element && luminance(getComputedStyle(element).backgroundColor);
    if (background !== undefined) return background < 110;
  }
  return (luminance(getComputedStyle(document.body ?? document.documentElement).color) ?? 0) > 150;
}

const HOST_STYLE = 'all:initial;position:fixed;z-index:2147483000;';
/** Corners the floating badge may take, in order of preference. */
const CORNERS = ['bottom:12px;right:12px', 'bottom:12px;left:12px', 'top:12px;right:12px', 'top:12px;left:12px'];
/** What counts as the page's own controls: the badge must not sit on any of them. */
const CONTROLS = 'a[href],button,input,select,textarea,label,summary,[role=button],[onclick],[tabindex]';

/** True when any of nine points of the host's box lies over a control of the page. */
function coversControl(host: HTMLElement): boolean {
  const box = host.getBoundingClientRect();
  for (const x of [box.left + 1, (box.left + box.right) / 2, box.right - 1]) {
    for (const y of [box.top + 1, (box.top + box.bottom) / 2, box.bottom - 1]) {
      for (const element of document.elementsFromPoint(x, y)) if (element !== host && element.closest(CONTROLS)) return true;
    }
  }
  return false;
}

/** Puts the (closed) badge in the first corner where it covers none of the page's controls. */
function placeBadge(host: HTMLElement): void {
  for (const corner of CORNERS) {
    host.style.cssText = HOST_STYLE + corner;
    if (!coversControl(host)) return;
  }
  host.style.cssText = HOST_STYLE + CORNERS[0];
}

export function mountPanel(anchor: Element | undefined, props: Omit<PanelProps, 'view' | 'mode' | 'onToggle' | 'crossSeeds'>): MountedPanel {
  const host = document.createElement('reseed-lens-panel');
  const mode = anchor ? 'inline' : 'floating';
  const shadow = host.attachShadow({ mode: 'closed' });
  const style = document.createElement('style');
  style.textContent = css + panelCss;
  const root = document.createElement('div');
  shadow.append(style, root);
  let open = !!anchor;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // While folded, the badge moves off whatever control scrolling or resizing brought under it.
  const replace = () => {
    clearTimeout(timer);
    timer = setTimeout(() => open || placeBadge(host), 150);
  };
  if (anchor) {
    // In the page's flow right after the torrent's title: it pushes content down, never covers it.
    host.style.cssText = 'all:initial;display:block;margin:8px 0';
    anchor.insertAdjacentElement('afterend', host);
  } else {
    document.documentElement.append(host);
    addEventListener('scroll', replace, { passive: true });
    addEventListener('resize', replace);
  }
  const onToggle = (isOpen: boolean) => {
    open = isOpen;
    if (!open) replace();
  };
  let placed = false;
  let drawn = '';
  return {
    update(view, crossSeeds) {
      // The page may switch its own theme: follow its look on every update.
      root.className = `rl-root ${pageIsDark() ? 'dark' : 'light'} ${mode}`;
      // The same view again (an answer and its announcement both arrive; the user changed their
      // sites in the settings) is not drawn again, so not even the moment of a redraw tells the page anything.
      const key = JSON.stringify([view, crossSeeds]);
      if (key === drawn) return;
      drawn = key;
      render(<Panel view={view} mode={mode} onToggle={onToggle} crossSeeds={crossSeeds} {...props} />, root);
      if (!anchor && !placed) {
        placed = true;
        placeBadge(host);
      }
    },
    remove() {
      clearTimeout(timer);
      removeEventListener('scroll', replace);
      removeEventListener('resize', replace);
      render(null, root);
      host.remove();
    },
  };
}
