// @vitest-environment happy-dom
/**
 * The in-page panel in each state, inline (under the torrent's title, open) and floating (a corner
 * badge that opens a card), and its mount: a closed shadow root that follows the page's look.
 */
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Panel, type PanelProps } from '../../../../features/lookup/ui/Panel';
import { mountPanel } from '../../../../entrypoints/tracker.content/mount';
import { pageView } from '../../../../features/lookup/panel-view';
import { describeFailure } from '../../../../utils/i18n';
import type { CandidateView, PageView, TabView } from '../../../../features/lookup/lookup.messages';
import type { ServiceFailure } from '../../../../utils/iyuu/service-errors';
import { candidate, click, resetBrowser, scriptedClick, show, tabView, text, unmount } from '../../support/components';

/** What the panel shows in an element: its text, or in the panel's quiet lists its generated content. */
const shownText = (element: Element) => element.getAttribute('data-text') ?? text(element);

const CANDIDATES = [
  candidate(9, 220354, { siteName: 'OurBits', held: true }),
  candidate(6, 360102, { siteName: 'PTerClub', held: true }),
  candidate(6, 360777, { siteName: 'PTerClub', held: true }),
  candidate(7, 209512, { siteName: 'HDHome', held: false }),
  candidate(4, 195000, { siteName: 'HDSky', held: true, isCurrentSite: true }),
];

function callbacks() {
  return { onHideOnSite: vi.fn(), onHashFromTorrent: vi.fn(), onRefresh: vi.fn(), onToggle: vi.fn(), onCrossSeed: vi.fn() };
}

async function showPanel(view: PageView, mode: PanelProps['mode'], handlers = callbacks()) {
  const root = await show(<Panel view={view} mode={mode} {...handlers} />);
  return { root, handlers, toggle: root.querySelector<HTMLButtonElement>('button.panel-toggle')! };
}

beforeEach(() => resetBrowser('en'));
afterEach(async () => {
  await unmount();
  vi.restoreAllMocks();
});

describe('inline panel', () => {
  it('starts open under the title: the summary, every candidate by site alike, age, refresh and hide', async () => {
    const { root, handlers, toggle } = await showPanel(tabView({ candidates: CANDIDATES, fetchedAt: Date.now() - 5 * 60_000 }), 'inline');
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(shownText(toggle.querySelector('.panel-summary')!)).toBe('4 torrents on 3 other sites');
    expect(toggle.classList.contains('has')).toBe(true);
    // In the order given, the page's own site last; nothing folded by the sites the user holds.
    expect([...root.querySelectorAll('.candidates > ul.sites .site-name')].map(shownText)).toEqual(['OurBits', 'PTerClub', 'HDHome', 'HDSky']);
    expect([...root.querySelectorAll('a.candidate-link')].map(shownText)).toEqual(['#220354', '#360102', '#360777', '#209512', '#195000']);
    expect(shownText(root.querySelector('li.site.current .tag')!)).toBe('this site');
    expect(root.querySelector('details.not-on')).toBeNull();
    expect(root.querySelectorAll('a.candidate-link').length).toBe(5);
    expect(root.querySelector<HTMLAnchorElement>('a.candidate-link')!.target).toBe('_blank');
    expect(root.querySelector<HTMLAnchorElement>('a.candidate-link')!.rel).toBe('noopener noreferrer');
    expect(text(root.querySelector('.panel-foot .muted'))).toBe('Answered 5 minutes ago');

    const foot = [...root.querySelectorAll('.panel-foot button')];
    expect(foot.map((button) => text(button))).toEqual(['Refresh', 'Hide on this site']);
    await click(foot[0]);
    expect(handlers.onRefresh).toHaveBeenCalledTimes(1);
    await click(foot[1]);
    expect(handlers.onHideOnSite).toHaveBeenCalledTimes(1);
  });

  it('folds and unfolds from its header', async () => {
    const { root, handlers, toggle } = await showPanel(tabView({ candidates: CANDIDATES }), 'inline');
    await click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(root.querySelector('.panel-body')).toBeNull();
    expect(shownText(toggle.querySelector('.panel-summary')!)).toBe('4 torrents on 3 other sites');
    await click(toggle);
    expect(root.querySelector('.panel-body')).not.toBeNull();
    expect(handlers.onToggle.mock.calls).toEqual([[false], [true]]);
  });

  it('opens all torrents of a site in new tabs without giving them the page (noopener)', async () => {
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    const { root } = await showPanel(tabView({ candidates: CANDIDATES }), 'inline');
    await click(root.querySelector('.open-all'));
    expect(open.mock.calls).toEqual([
      ['https://site6.example/details.php?id=360102', '_blank', 'noopener'],
      ['https://site6.example/details.php?id=360777', '_blank', 'noopener'],
    ]);
  });

  it('holds site names and torrent ids as generated content, not text the page could search with window.find', async () => {
    const { root } = await showPanel(tabView({ candidates: [...CANDIDATES, candidate(8, 4242, { siteName: 'NoLink', detailsUrl: undefined })] }), 'inline');
    expect(root.textContent).not.toMatch(/OurBits|PTerClub|HDHome|NoLink|220354|360102|4242/);
    expect(root.querySelector('.candidate-nolink')!.getAttribute('data-text')).toBe('#4242');
    // Screen readers still get the whole name from the link itself.
    expect(root.querySelector('a.candidate-link')!.getAttribute('aria-label')).toBe('OurBits torrent 220354');
  });
});

describe('"Cross-seed" in the panel', () => {
  it('is on every candidate alike, as generated content, off the Tab order (the list is one stop, arrow keys move in it)', async () => {
    const { root } = await showPanel(pageView(tabView({ candidates: CANDIDATES })), 'inline');
    const buttons = [...root.querySelectorAll<HTMLButtonElement>('.panel-list button.cross-seed')];
    expect(buttons).toHaveLength(CANDIDATES.length);
    expect(buttons.map(shownText)).toEqual(CANDIDATES.map(() => 'Cross-seed'));
    expect(buttons.every((button) => button.tabIndex === -1 && button.textContent === '')).toBe(true);
    expect(root.textContent).not.toContain('Cross-seed');
    // Arrow keys reach it from the link before it.
    const list = root.querySelector<HTMLElement>('.panel-list')!;
    const links = [...list.querySelectorAll<HTMLElement>('a[href], button')];
    const link = root.querySelector<HTMLAnchorElement>('a.candidate-link')!;
    link.focus();
    const reached: string[] = [];
    for (let step = 0; step < 2; step++) {
      await act(() => void list.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true })));
      reached.push((root.getRootNode() as Document).activeElement?.className ?? '');
    }
    expect(links.indexOf(link)).toBe(0);
    expect(reached).toEqual(['copy icon-button', 'link-button cross-seed']);
  });

  it("sends the candidate on the user's own click only, never on a page script's", async () => {
    const { root, handlers } = await showPanel(pageView(tabView({ candidates: CANDIDATES })), 'inline');
    const button = root.querySelector('li.site[data-sid="6"] button.cross-seed');
    await scriptedClick(button);
    expect(handlers.onCrossSeed).not.toHaveBeenCalled();
    await click(button);
    expect(handlers.onCrossSeed).toHaveBeenCalledTimes(1);
    expect(handlers.onCrossSeed.mock.calls[0]![0]).toMatchObject({ sid: 6, torrentId: 360102 });
  });

  it('shows an outcome under its candidate as generated content only', async () => {
    const lines = ["The files differ from this page's torrent: not added.", 'Album/01.flac — not in this page\'s torrent'];
    const root = await show(
      <Panel view={pageView(tabView({ candidates: CANDIDATES }))} mode="inline" {...callbacks()} crossSeeds={[{ sid: 6, torrentId: 360777, running: false, ok: false, lines }]} />,
    );
    const row = [...root.querySelectorAll('li.torrent')].find((entry) => entry.querySelector('a.candidate-link')?.getAttribute('href')?.endsWith('=360777'))!;
    expect([...row.querySelectorAll('.cross-seed-outcome')].map(shownText)).toEqual(lines);
    expect(root.querySelectorAll('.cross-seed-outcome')).toHaveLength(2);
    expect(root.textContent).not.toMatch(/differ|Album/);
    // Inside the list's one region (its size fixed by panel.css), not beside it.
    expect(row.closest('.panel-list')).not.toBeNull();
  });
});

describe('a page that spent its lookups', () => {
  it('offers "Look up again", which only the user\'s own click presses', async () => {
    const { root, handlers } = await showPanel(tabView({ status: 'waiting-for-user', candidates: [] }), 'inline');
    const again = root.querySelector('button.look-up-again');
    expect(text(again)).toBe('Look up again');
    await scriptedClick(again);
    expect(handlers.onRefresh).not.toHaveBeenCalled();
    await click(again);
    expect(handlers.onRefresh).toHaveBeenCalledTimes(1);
  });

  it('ignores a page script\'s clicks on every button', async () => {
    const { root, handlers } = await showPanel(tabView({ candidates: CANDIDATES, fetchedAt: Date.now() }), 'inline');
    for (const button of root.querySelectorAll('.panel-foot button')) await scriptedClick(button);
    expect(handlers.onRefresh).not.toHaveBeenCalled();
    expect(handlers.onHideOnSite).not.toHaveBeenCalled();
  });
});

/**
 * The same answer as the background builds it for two users: one holding OurBits only, the other
 * PTerClub, HDHome and TJUPT (candidates.ts marks each candidate `held` and puts those first).
 */
const ANSWER = [
  candidate(7, 209512, { siteName: 'HDHome' }),
  candidate(9, 220354, { siteName: 'OurBits' }),
  candidate(6, 360102, { siteName: 'PTerClub' }),
  candidate(6, 360777, { siteName: 'PTerClub' }),
  candidate(8, 515151, { siteName: 'TJUPT' }),
  candidate(4, 195000, { siteName: 'HDSky', isCurrentSite: true }),
];
function asHeldBy(held: number[]): CandidateView[] {
  const marked = ANSWER.map((entry) => ({ ...entry, held: held.includes(entry.sid) }));
  return marked.sort((a, b) => Number(b.held) - Number(a.held) || a.siteName.localeCompare(b.siteName) || a.torrentId - b.torrentId);
}
const HOLDS_ONE = asHeldBy([9]);
const HOLDS_THREE = asHeldBy([6, 7, 8]);

describe('what the page could measure of the panel (issue #8)', () => {
  /** The panel's whole DOM in each state a user can put it in: as first drawn, and toggled once. */
  async function drawn(view: PageView, mode: PanelProps['mode']): Promise<string[]> {
    const { root, toggle } = await showPanel(view, mode);
    const states = [root.innerHTML];
    await click(toggle);
    states.push(root.innerHTML);
    await unmount();
    return states;
  }

  it('the background\'s two views differ only in what the user holds (the premise)', () => {
    expect(HOLDS_ONE.map((entry) => entry.sid)).not.toEqual(HOLDS_THREE.map((entry) => entry.sid));
    expect(pageView(tabView({ candidates: HOLDS_ONE }))).toEqual(pageView(tabView({ candidates: HOLDS_THREE })));
  });

  it.each(['inline', 'floating'] as const)('%s: the page views of two users holding different sites draw the very same DOM, open and folded', async (mode) => {
    const one = await drawn(pageView(tabView({ candidates: HOLDS_ONE, fetchedAt: 1_700_000_000_000 })), mode);
    const three = await drawn(pageView(tabView({ candidates: HOLDS_THREE, fetchedAt: 1_700_000_000_000 })), mode);
    expect(three).toEqual(one);
    // It is the full answer: every candidate is listed, none folded away.
    const opened = one.find((html) => html.includes('candidate-link'))!;
    expect(opened.match(/class="candidate-link"/g)).toHaveLength(ANSWER.length);
    expect(opened).not.toContain('not-on');
  });

  it.each(['inline', 'floating'] as const)('%s: even handed `held` by mistake, the panel neither folds nor counts by it', async (mode) => {
    const sameOrder = (held: number[]) => ANSWER.map((entry) => ({ ...entry, held: held.includes(entry.sid) }));
    const one = await drawn(tabView({ candidates: sameOrder([9]), fetchedAt: 1_700_000_000_000 }), mode);
    const three = await drawn(tabView({ candidates: sameOrder([6, 7, 8]), fetchedAt: 1_700_000_000_000 }), mode);
    expect(three).toEqual(one);
    expect(one.join('')).not.toContain('not-on');
  });

  /**
   * A service may answer only for the sites the user reported: then the answer itself differs by
   * the user's sites. What a page can measure must not follow it: the text (window.find), the Tab
   * stops, and the list's size, which CSS fixes (panel.css) and which is the same element here.
   */
  it.each(['inline', 'floating'] as const)('%s: answers of 0, 1 and 5 candidates give the same text and the same Tab stops', async (mode) => {
    const seen = [];
    for (const candidates of [[], ANSWER.slice(0, 1), ANSWER.slice(0, 5)]) {
      const { root, toggle } = await showPanel(pageView(tabView({ candidates, fetchedAt: 1_700_000_000_000 })), mode);
      if (mode === 'floating') await click(toggle);
      const tabStops = [...root.querySelectorAll<HTMLElement>('a[href], button, [tabindex]')]
        .filter((element) => element.tabIndex >= 0)
        .map((element) => element.localName);
      seen.push({ text: text(root), tabStops, list: root.querySelectorAll('.panel-list').length });
      await unmount();
    }
    expect(seen[0]!.list).toBe(1);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[2]).toEqual(seen[0]);
  });
});

describe('floating panel', () => {
  it('starts as a small badge with the count, named in full for screen readers, and nothing listed yet', async () => {
    const { root, toggle } = await showPanel(tabView({ candidates: CANDIDATES }), 'floating');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(shownText(toggle.querySelector('.badge-text')!)).toBe('4');
    // Generated content, of a fixed width: the count is not text a page script could search or measure.
    expect(text(toggle)).toBe('');
    expect(toggle.getAttribute('aria-label')).toBe('Reseed Lens: 4 torrents on 3 other sites');
    expect(toggle.title).toBe('4 torrents on 3 other sites');
    expect(root.querySelector('.panel-body')).toBeNull();
    expect(root.querySelector('a.candidate-link')).toBeNull();
  });

  it('opens into a card on click, and folds back on Escape with the focus kept on its toggle', async () => {
    const { root, handlers, toggle } = await showPanel(tabView({ candidates: CANDIDATES }), 'floating');
    toggle.focus();
    await click(toggle);
    expect(root.querySelector('.panel.open')).not.toBeNull();
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(toggle.title).toBe('Close');
    expect(text(toggle.querySelector('.panel-title'))).toBe('Reseed Lens');
    expect(root.querySelectorAll('a.candidate-link').length).toBe(5);
    // The same button element stays: keyboard users do not lose their place.
    expect(root.querySelector('button.panel-toggle')).toBe(toggle);
    await act(() => {
      root.querySelector('a.candidate-link')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    expect(root.querySelector('.panel-body')).toBeNull();
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(handlers.onToggle.mock.calls).toEqual([[true], [false]]);
  });
});

const FAILURE: ServiceFailure = { kind: 'not-bound', detail: 'test', serviceMessage: '用户未绑定推荐站点' };

describe.each(['inline', 'floating'] as const)('panel states (%s)', (mode) => {
  async function open(view: TabView) {
    const shown = await showPanel(view, mode);
    if (mode === 'floating') await click(shown.toggle);
    return shown;
  }

  it('looking up', async () => {
    const { root, toggle } = await showPanel(tabView({ status: 'looking-up' }), mode);
    expect(shownText(mode === 'floating' ? toggle.querySelector('.badge-text')! : toggle.querySelector('.panel-summary')!)).toBe(mode === 'floating' ? '…' : 'Looking up 1 hash…');
    if (mode === 'floating') await click(toggle);
    expect(root.querySelector<HTMLButtonElement>('.panel-foot button')!.disabled).toBe(true);
  });

  it('no token', async () => {
    const { root, toggle } = await open(tabView({ status: 'no-credentials' }));
    expect(shownText(toggle.querySelector('.panel-summary')!)).toBe('Set your IYUU token to look this torrent up.');
    expect(text(root.querySelector('.panel-body > p'))).toBe('Set your IYUU token in the extension\'s settings (toolbar button → Settings).');
    expect([...root.querySelectorAll('.panel-foot button')].map((button) => text(button))).toEqual(['Hide on this site']);
  });

  it('no hash, with a .torrent link and a reason', async () => {
    const { root, handlers, toggle } = await open(
      tabView({ status: 'no-hash', hashes: [], problem: 'site-gives-no-hash', torrentFileUrl: 'https://hdsky.me/download.php?id=1' }),
    );
    expect(shownText(toggle.querySelector('.panel-summary')!)).toBe('No info-hash found on this page.');
    expect(text(root.querySelector('.panel-body'))).toContain('This site does not give the info-hash for this torrent');
    await click(root.querySelector('.panel-body button.primary'));
    expect(handlers.onHashFromTorrent).toHaveBeenCalledTimes(1);
  });

  it('the .torrent file gave nothing', async () => {
    const { root } = await open(tabView({ status: 'no-hash', hashes: [], torrentFileUrl: 'https://hdsky.me/download.php?id=1', torrentFileProblem: 'not-a-torrent' }));
    expect(text(root.querySelector('.panel-body .notice.warn'))).toBe('The download was not a .torrent file (perhaps a login page).');
  });

  it('an error: what went wrong and what to do', async () => {
    const { root, toggle } = await showPanel(tabView({ status: 'error', error: FAILURE }), mode);
    if (mode === 'floating') {
      expect(shownText(toggle.querySelector('.badge-text')!)).toBe('!');
      await click(toggle);
    }
    expect(shownText(toggle.querySelector('.panel-summary')!)).toBe('Lookup failed — open for details');
    const { title, action } = describeFailure(FAILURE);
    const notice = root.querySelector('.notice.error')!;
    expect(notice.getAttribute('data-kind')).toBe('not-bound');
    expect(text(notice.querySelector('.notice-title'))).toBe(title);
    expect(text(notice)).toContain(action);
  });

  it('no candidates', async () => {
    const { root, toggle } = await showPanel(tabView({ candidates: [] }), mode);
    if (mode === 'floating') {
      expect(shownText(toggle.querySelector('.badge-text')!)).toBe('0');
      await click(toggle);
    }
    expect(shownText(toggle.querySelector('.panel-summary')!)).toBe('No other site carries this torrent.');
    expect(toggle.classList.contains('has')).toBe(false);
    expect(root.querySelector('a.candidate-link')).toBeNull();
  });

  it('in Chinese', async () => {
    resetBrowser('zh_CN');
    const { root, toggle } = await open(tabView({ candidates: CANDIDATES }));
    expect(shownText(toggle.querySelector('.panel-summary')!)).toBe('其他 3 个站点共 4 个种子');
    expect(root.querySelector('details.not-on')).toBeNull();
    expect([...root.querySelectorAll('.panel-foot button')].map((button) => text(button))).toEqual(['刷新', '在此站点隐藏']);
  });
});

describe('mountPanel', () => {
  let shadows: ShadowRoot[] = [];
  beforeEach(() => {
    shadows = [];
    // The test's own window into the closed root: the page never gets one.
    const attach = HTMLElement.prototype.attachShadow;
    vi.spyOn(HTMLElement.prototype, 'attachShadow').mockImplementation(function (this: HTMLElement, init: ShadowRootInit) {
      const shadow = attach.call(this, init);
      shadows.push(shadow);
      return shadow;
    });
    document.body.innerHTML = '<h1 id="top">Oppenheimer.2023.2160p</h1><table id="info"><tr><td>Hash码</td></tr></table>';
    document.body.style.background = '';
  });

  const callbacksOnly = () => ({ onHideOnSite: vi.fn(), onHashFromTorrent: vi.fn(), onRefresh: vi.fn(), onCrossSeed: vi.fn() });

  it('puts the panel right after the anchor, in a closed shadow root the page cannot read', async () => {
    const anchor = document.querySelector('#top')!;
    const mounted = mountPanel(anchor, callbacksOnly());
    await act(() => mounted.update(tabView({ candidates: CANDIDATES })));
    const host = anchor.nextElementSibling as HTMLElement;
    expect(host.localName).toBe('reseed-lens-panel');
    expect(HTMLElement.prototype.attachShadow).toHaveBeenCalledWith({ mode: 'closed' });
    expect(host.shadowRoot).toBeNull();
    expect(host.childNodes.length).toBe(0);
    expect(document.body.textContent).not.toMatch(/OurBits|PTerClub|HDHome|site\d\.example/);
    expect(document.documentElement.outerHTML).not.toMatch(/OurBits|PTerClub|HDHome|site\d\.example/);
    // Inside, the panel is there and open.
    expect(shadows[0]!.querySelectorAll('a.candidate-link').length).toBe(5);
    expect(shadows[0]!.querySelector('.rl-root')!.classList.contains('inline')).toBe(true);
    mounted.remove();
    expect(document.querySelector('reseed-lens-panel')).toBeNull();
  });

  it('draws a view once: the same view again (an answer and its announcement; the user changed their sites) redraws nothing', async () => {
    const draws = vi.spyOn(Panel.prototype, 'render');
    const mounted = mountPanel(document.querySelector('#top')!, callbacksOnly());
    const view = pageView(tabView({ candidates: HOLDS_ONE }));
    await act(() => mounted.update(view));
    const once = draws.mock.calls.length;
    expect(once).toBeGreaterThan(0);
    await act(() => mounted.update(pageView(tabView({ candidates: HOLDS_THREE }))));
    await act(() => mounted.update({ ...view }));
    expect(draws.mock.calls.length).toBe(once);
    // A real change is drawn.
    await act(() => mounted.update({ ...view, status: 'looking-up' }));
    expect(draws.mock.calls.length).toBeGreaterThan(once);
    expect(shadows[0]!.querySelector('.panel.status-looking-up')).not.toBeNull();
    mounted.remove();
  });

  it.each([
    ['a dark page background', 'rgb(24, 26, 27)', '', 'dark'],
    ['a light page background', 'rgb(250, 250, 250)', '', 'light'],
    ['no background but light text', '', 'rgb(230, 230, 230)', 'dark'],
    ['no background and default text', '', '', 'light'],
  ])('follows the page\'s look: %s', async (_what, background, color, look) => {
    document.body.style.background = background;
    document.body.style.color = color;
    const mounted = mountPanel(document.querySelector('#top')!, callbacksOnly());
    await act(() => mounted.update(tabView({ candidates: CANDIDATES })));
    expect(shadows[0]!.querySelector('.rl-root')!.classList.contains(look)).toBe(true);
    mounted.remove();
  });
});
