// @vitest-environment happy-dom
/**
 * Asking once which sites the user is on: offered in the popup while settings.heldSites is null and
 * settings.askedForSites is false, with the sites the extension saw them visit, ticked.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Popup } from '../../../../entrypoints/popup/PopupApp';
import type { SiteChoice } from '../../../../features/sites/sites.messages';
import type { Settings } from '../../../../utils/settings';
import { TAB_ID, answerBackground, candidate, click, defaultSettings, resetBrowser, show, tabView, text, unmount, waitFor } from '../../support/components';

const SITES: SiteChoice[] = [
  { sid: 4, site: 'hdsky', nickname: 'HDSky', host: 'hdsky.me' },
  { sid: 6, site: 'pterclub', nickname: 'PTerClub', host: 'pterclub.net' },
  { sid: 7, site: 'hdhome', nickname: 'HDHome', host: 'hdhome.org' },
  { sid: 9, site: 'ourbits', nickname: 'OurBits', host: 'ourbits.club' },
];
// Not yet picked: no `held` on any candidate, so nothing is folded.
const CANDIDATES = [candidate(9, 1, { siteName: 'OurBits' }), candidate(6, 2, { siteName: 'PTerClub' }), candidate(7, 3, { siteName: 'HDHome' })];

async function openPopup(settings: Partial<Settings>, seen: number[]) {
  const saved: unknown[] = [];
  const background = answerBackground({
    'view:get': () => tabView({ candidates: CANDIDATES }),
    'settings:get': () => defaultSettings(settings),
    'sites:list': () => ({ sites: SITES, seen, fromService: true }),
    'settings:save': ({ update }) => {
      saved.push(update);
      return defaultSettings({ ...settings, ...update });
    },
  });
  const root = await show(<Popup tabId={TAB_ID} poppedOut />);
  await waitFor(() => root.querySelector('a.candidate-link'), 'the candidates');
  return { root, background, saved };
}

const boxes = (root: HTMLElement) => [...root.querySelectorAll<HTMLInputElement>('.ask-sites input[type=checkbox]')];

beforeEach(() => resetBrowser('en'));
afterEach(unmount);

describe('asking once for the user\'s sites', () => {
  it('offers the visited sites, ticked, and saves them as the user\'s sites; the answer folds at once', async () => {
    const { root, saved } = await openPopup({ heldSites: null, askedForSites: false }, [4, 9, 6]);
    await waitFor(() => root.querySelector('.ask-sites'), 'the question');
    expect(text(root.querySelector('#ask-sites-heading'))).toBe('Which of these sites are you on?');
    expect(boxes(root).map((box) => [text(box.closest('label')), box.checked])).toEqual([
      ['HDSky hdsky.me', true],
      ['PTerClub pterclub.net', true],
      ['OurBits ourbits.club', true],
    ]);
    // The full list lives in the options page.
    expect(root.querySelector<HTMLAnchorElement>('.ask-sites a')!.href).toBe(`chrome-extension://test-extension-id/options.html#sites-section`);
    expect(root.querySelector('details.not-on')).toBeNull();

    await click(boxes(root)[1]); // not on PTerClub after all
    await click(root.querySelector('.ask-sites button.save-sites'));
    await waitFor(() => root.querySelector('.ask-sites.saved'), 'the saved note');
    expect(saved).toEqual([{ heldSites: [4, 9], askedForSites: true }]);
    expect(text(root.querySelector('.ask-sites.saved'))).toBe('Saved: 2 sites are yours. Change them any time in the settings.');
    // Sites the user is not on fold away without waiting for another lookup.
    expect(text(root.querySelector('details.not-on summary'))).toBe('Sites you are not on (2)');
    expect([...root.querySelectorAll('.candidates > ul.sites .site-name')].map((name) => text(name))).toEqual(['OurBits']);
  });

  it('says "1 site" in the singular', async () => {
    const { root, saved } = await openPopup({ heldSites: null, askedForSites: false }, [9]);
    await waitFor(() => root.querySelector('.ask-sites'), 'the question');
    await click(root.querySelector('.ask-sites button.save-sites'));
    await waitFor(() => root.querySelector('.ask-sites.saved'), 'the saved note');
    expect(saved).toEqual([{ heldSites: [9], askedForSites: true }]);
    expect(text(root.querySelector('.ask-sites.saved'))).toBe('Saved: 1 site is yours. Change it any time in the settings.');
  });

  it('cannot save an empty choice', async () => {
    const { root } = await openPopup({ heldSites: null, askedForSites: false }, [9]);
    await waitFor(() => root.querySelector('.ask-sites'), 'the question');
    const save = root.querySelector<HTMLButtonElement>('.ask-sites button.save-sites')!;
    expect(save.disabled).toBe(false);
    await click(boxes(root)[0]);
    expect(save.disabled).toBe(true);
  });

  it('"Not now" records only that it asked, and goes away', async () => {
    const { root, saved } = await openPopup({ heldSites: null, askedForSites: false }, [9, 6]);
    await waitFor(() => root.querySelector('.ask-sites'), 'the question');
    await click(root.querySelector('.ask-sites button.not-now'));
    await waitFor(() => !root.querySelector('.ask-sites'), 'the question to go');
    expect(saved).toEqual([{ askedForSites: true }]);
  });

  it.each<[string, Partial<Settings>, number[]]>([
    ['it asked before', { heldSites: null, askedForSites: true }, [9]],
    ['the user picked their sites', { heldSites: [9], askedForSites: false }, [9]],
    ['the user picked none', { heldSites: [], askedForSites: false }, [9]],
    ['no site was visited yet', { heldSites: null, askedForSites: false }, []],
  ])('does not ask when %s', async (_why, settings, seen) => {
    const { root, background } = await openPopup(settings, seen);
    await waitFor(() => background.sentOf('settings:get').length > 0, 'the settings read');
    await waitFor(() => true, 'a moment');
    expect(root.querySelector('.ask-sites')).toBeNull();
    if (settings.askedForSites || settings.heldSites !== null) expect(background.sentOf('sites:list')).toHaveLength(0);
  });
});
