/** The background's copy of the settings: the only writer, so every change goes through save(). */
import { browser } from 'wxt/browser';
import { SETTINGS_KEY, readSettings, storedSettings, type LoadedSettings, type Settings } from '../settings';

export class SettingsStore {
  private loaded: Promise<LoadedSettings> | undefined;
  private readonly listeners: ((next: Settings, previous: Settings) => void | Promise<void>)[] = [];

  constructor() {
    // Another context of ours (or a second background instance) may write; keep the copy true.
    browser.storage.onChanged.addListener((changes, area) => {
      if (area === 'local' && SETTINGS_KEY in changes) this.loaded = undefined;
    });
  }

  async load(): Promise<LoadedSettings> {
    this.loaded ??= browser.storage.local.get(SETTINGS_KEY).then(async (stored) => {
      const loaded = readSettings(stored[SETTINGS_KEY]);
      // A store from an older version is written back in the current shape once it has been read.
      if (loaded.migrated && !loaded.unreadable) await browser.storage.local.set({ [SETTINGS_KEY]: storedSettings(loaded.settings) });
      return loaded;
    });
    return this.loaded;
  }

  async get(): Promise<Settings> {
    return (await this.load()).settings;
  }

  async save(next: Settings): Promise<Settings> {
    const previous = await this.get();
    await browser.storage.local.set({ [SETTINGS_KEY]: storedSettings(next) });
    this.loaded = Promise.resolve({ settings: next, resetFields: [], migrated: false, unreadable: false });
    for (const listener of this.listeners) await listener(next, previous);
    return next;
  }

  onChange(listener: (next: Settings, previous: Settings) => void | Promise<void>): void {
    this.listeners.push(listener);
  }
}
