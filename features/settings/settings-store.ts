/** The background's copy of the settings: the only writer, so every change goes through save(). */
import { checkedSettings, type LoadedSettings, type Settings } from '../../utils/settings';
import { settingsItem } from './settings.storage';

/** The browser's answer when storage.local is full (Chromium's quota; Firefox says it its own way). */
export function isQuotaError(error: unknown): boolean {
  return /quota|exceed|storage.*full|NS_ERROR_DOM_QUOTA/i.test(error instanceof Error ? error.message : String(error));
}

export class SettingsStore {
  private loaded: Promise<LoadedSettings> | undefined;
  private readonly listeners: ((next: Settings, previous: Settings) => void | Promise<void>)[] = [];

  /** `makeRoom` frees storage (the answer cache) when the store is full: settings always win. */
  constructor(private readonly makeRoom: () => Promise<unknown> = async () => undefined) {
    // Another context of ours (or a second background instance) may write; keep the copy true.
    settingsItem.onChanged(() => (this.loaded = undefined));
  }

  async load(): Promise<LoadedSettings> {
    this.loaded ??= settingsItem.get().then(async (loaded) => {
      // A store from an older version is written back in the current shape once it has been read.
      if (loaded.migrated && !loaded.unreadable) await this.write(loaded.settings).catch(() => undefined);
      return loaded;
    });
    return this.loaded;
  }

  async get(): Promise<Settings> {
    return (await this.load()).settings;
  }

  /**
   * Writes the settings after checking them with the very schemas that read them back, so a value
   * that would not survive the next start (a host the schema refuses) never replaces good ones.
   */
  async save(next: Settings): Promise<Settings> {
    const previous = await this.get();
    const checked = checkedSettings(next);
    await this.write(checked);
    this.loaded = Promise.resolve({ settings: checked, resetFields: [], repairedFields: [], migrated: false, unreadable: false });
    for (const listener of this.listeners) await listener(checked, previous);
    return checked;
  }

  onChange(listener: (next: Settings, previous: Settings) => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  private async write(settings: Settings): Promise<void> {
    try {
      await settingsItem.set(settings);
    } catch (error) {
      if (!isQuotaError(error)) throw error;
      await this.makeRoom();
      await settingsItem.set(settings);
    }
  }
}
