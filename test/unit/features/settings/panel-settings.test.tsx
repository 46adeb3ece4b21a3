// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/** The in-page panel switches and the sites enabled from the popup, against the real background. */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { Options } from '../../../../entrypoints/options/OptionsApp';
import { CustomSitesSection, PanelSection } from '../../../../features/settings/ui/PanelSettings';
import { loadMessages } from '../../support/i18n';
import { WithView } from '../../options/harness';
import { $, click, mount, startOptionsWorld, storedSettings, text, waitFor, type OptionsWorld } from '../../options/support';

const en = loadMessages('en');

let world: OptionsWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('in-page panel', () => {
  it('turns the panel off everywhere and on again, keeping the other settings', async () => {
    world = await startOptionsWorld({ settings: { heldSites: [4] } });
    const page = mount(<WithView initial={await world.app.preferences.settingsView()} section={PanelSection} />);
    const toggle = $<HTMLInputElement>(page, '#panel-enabled');
    expect(toggle.checked).toBe(true);
    expect(text(page, '#panel-section')).toContain(en.panelHiddenNone!.message);
    await click(toggle);
    await waitFor(async () => (await storedSettings()).panelEnabled === false, 'the panel off');
    await waitFor(() => page.querySelector('#panel-status.ok'), 'saved');
    expect($<HTMLInputElement>(page, '#panel-enabled').checked).toBe(false);
    const stored = await storedSettings();
    expect(stored.token).toBe('demo-token');
    expect(stored.heldSites).toEqual([4]);
    await click($(page, '#panel-enabled'));
    await waitFor(async () => (await storedSettings()).panelEnabled === true, 'the panel on');
  });

  it('lists the sites the panel is hidden on, each with its own labelled button to show it again', async () => {
    world = await startOptionsWorld({ settings: { panelDisabledHosts: ['hdsky.me', 'ourbits.club'] } });
    const page = mount(<WithView initial={await world.app.preferences.settingsView()} section={PanelSection} />);
    const buttons = [...page.querySelectorAll<HTMLButtonElement>('#panel-hidden-hosts button')];
    expect(buttons.map((button) => button.getAttribute('aria-label'))).toEqual([
      en.panelShowAgainOn!.message.replace('$1', 'hdsky.me'),
      en.panelShowAgainOn!.message.replace('$1', 'ourbits.club'),
    ]);
    await click(buttons[0]!);
    await waitFor(async () => ((await storedSettings()).panelDisabledHosts as string[]).length === 1, 'one host left');
    expect((await storedSettings()).panelDisabledHosts).toEqual(['ourbits.club']);
    await waitFor(() => page.querySelectorAll('#panel-hidden-hosts li').length === 1, 'the list updated');
    expect(text(page, '#panel-hidden-hosts')).not.toContain('hdsky.me');
    // Focus stays in the list, on the button that took the removed one's place.
    await waitFor(() => document.activeElement?.getAttribute('aria-label') === en.panelShowAgainOn!.message.replace('$1', 'ourbits.club'), 'focus on the next button');
    await click($(page, '#panel-hidden-hosts button'));
    await waitFor(() => text(page, '#panel-section').includes(en.panelHiddenNone!.message), 'the list empty');
    await waitFor(() => document.activeElement?.id === 'panel-hidden-heading', 'focus on the heading');
  });

  it('shows a site hidden from the panel while the page is open', async () => {
    world = await startOptionsWorld();
    const page = mount(<Options />);
    await waitFor(() => page.querySelector('#panel-section'), 'the page');
    expect(page.querySelector('#panel-hidden-hosts')).toBeNull();
    // "Hide on this site" in a tracker tab's panel, as the content script says it.
    await world.app.pages.hidePanelOn('https://hdsky.me/details.php?id=1');
    await waitFor(() => text(page, '#panel-hidden-hosts').includes('hdsky.me'), 'the new host listed');
    // Let the page's own requests finish before the service closes.
    await waitFor(() => page.querySelector('#site-list') && page.querySelector('.token-activated'), 'the page loaded');
  });
});

describe('sites you enabled', () => {
  it('lists them and removes one through the background, which drops its script and permission', async () => {
    world = await startOptionsWorld({ settings: { customHosts: ['tracker.example.org', 'other.example.net'] } });
    const removed: string[][] = [];
    const remove = fakeBrowser.permissions.remove;
    fakeBrowser.permissions.remove = async (permissions) => {
      removed.push(permissions.origins ?? []);
      return remove(permissions);
    };
    const page = mount(<WithView initial={await world.app.preferences.settingsView()} section={CustomSitesSection} />);
    const button = $<HTMLButtonElement>(page, '#custom-hosts li:first-child button');
    expect(button.getAttribute('aria-label')).toBe(en.customRemoveFrom!.message.replace('$1', 'tracker.example.org'));
    await click(button);
    await waitFor(() => page.querySelector('#custom-sites-status.ok'), 'removed');
    expect(text(page, '#custom-sites-status')).toBe(en.customRemoved!.message.replace('$1', 'tracker.example.org'));
    expect(text(page, '#custom-hosts')).not.toContain('tracker.example.org');
    expect((await storedSettings()).customHosts).toEqual(['other.example.net']);
    expect(world.messages.filter((message) => message.type === 'site:disable')).toEqual([{ type: 'site:disable', host: 'tracker.example.org' }]);
    expect(removed).toEqual([['*://tracker.example.org/*']]);

    await waitFor(() => document.activeElement?.getAttribute('aria-label') === en.customRemoveFrom!.message.replace('$1', 'other.example.net'), 'focus on the next button');
    await click($<HTMLButtonElement>(page, '#custom-hosts li button'));
    await waitFor(() => text(page, '#custom-sites-section').includes(en.customNone!.message), 'the list empty');
    await waitFor(() => document.activeElement?.id === 'custom-sites-heading', 'focus on the heading');
  });
});
