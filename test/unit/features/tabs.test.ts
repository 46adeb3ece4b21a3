/**
 * TabViews (features/tabs.ts): a view's listeners (the client index's list-page
 * answer and badge) hear of a change before it is announced, so they never wait behind the tab's
 * content script or the extension's pages taking the announcement.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { TabViews } from '../../../features/tabs';
import type { TabView } from '../../../features/lookup/lookup.messages';

const view: TabView = { tabId: 7, url: 'https://ourbits.club/torrents.php', host: 'ourbits.club', status: 'no-hash', kind: 'list', hashes: [], candidates: [], rows: [{ id: '60003' }] };

beforeEach(() => {
  fakeBrowser.reset();
});

describe('a tab view set', () => {
  it('reaches its listeners while the announcement is still being taken', async () => {
    // The tab's content script and the extension's pages have not taken the announcement yet.
    const taken: (() => void)[] = [];
    const pending = () => new Promise<void>((resolve) => taken.push(resolve));
    (fakeBrowser.runtime as unknown as { sendMessage: unknown }).sendMessage = pending;
    (fakeBrowser.tabs as unknown as { sendMessage: unknown }).sendMessage = pending;
    const tabs = new TabViews();
    const heard: TabView[] = [];
    tabs.onChange((changed) => heard.push(changed));
    const setting = tabs.set(view);
    for (let tries = 0; !taken.length; tries++) {
      if (tries > 1000) throw new Error('the view was never announced');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(heard).toEqual([view]);
    for (const take of taken) take();
    await setting;
    expect(heard).toEqual([view]);
  });
});
