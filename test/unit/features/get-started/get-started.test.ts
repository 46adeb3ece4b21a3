/**
 * The first run that guides, in the background (features/get-started): what onInstalled opens and
 * records, and how the steps read the settings and the saved clients.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { GET_STARTED_PATH } from '../../../../features/get-started/get-started.feature';

let app: BackgroundApp;
let opened: string[];
const open = async (path: string) => opened.push(path);

beforeEach(() => {
  fakeBrowser.reset();
  app = new BackgroundApp();
  opened = [];
});

describe('on install', () => {
  it('opens "Get started" once: a second "install" (Chromium with --load-extension, at every start) opens nothing', async () => {
    await app.getStarted.installed({ reason: 'install' }, '0.2.0', open);
    await app.getStarted.installed({ reason: 'install' }, '0.2.0', open);
    expect(opened).toEqual([GET_STARTED_PATH]);
    expect(GET_STARTED_PATH).toBe('/options.html#get-started');
  });

  it('opens nothing on an update, says "Updated to" once, and never opens the guide afterwards', async () => {
    await app.getStarted.installed({ reason: 'update', previousVersion: '0.1.0' }, '0.2.0', open);
    expect(opened).toEqual([]);
    expect((await app.handlers['get-started:get']({})).updatedTo).toBe('0.2.0');
    await app.handlers['get-started:update-shown']({});
    expect((await app.handlers['get-started:get']({})).updatedTo).toBeUndefined();
    await app.getStarted.installed({ reason: 'install' }, '0.2.0', open);
    expect(opened).toEqual([]);
  });
});

describe('the steps', () => {
  it('are done by a token or a site asked by pieces hash, a held site, and a saved client', async () => {
    const steps = async () => (await app.handlers['get-started:get']({})).steps;
    expect(await steps()).toEqual({ service: false, sites: false, client: false });
    const settings = await app.settings.get();
    await app.settings.save({ ...settings, piecesHashSites: { '1': { on: true } } });
    expect((await steps()).service).toBe(true);
    await app.settings.save({ ...settings, token: 'a-token', heldSites: [4] });
    expect(await steps()).toEqual({ service: true, sites: true, client: false });
    await app.clients.save({ type: 'qbittorrent', url: 'http://127.0.0.1:8080', username: 'admin', password: 'secret' });
    expect(await steps()).toEqual({ service: true, sites: true, client: true });
  });
});
