/** The settings' one stored record: storage.local `settings`, versioned, read field by field (utils/settings.ts). */
import { defineStoredItem } from '../../utils/stored-item';
import { SETTINGS_MIGRATIONS, SETTINGS_VERSION, readUpgradedSettings, settingsSchema } from '../../utils/settings';

export const settingsItem = defineStoredItem({
  area: 'local',
  key: 'settings',
  schema: settingsSchema,
  version: SETTINGS_VERSION,
  migrations: SETTINGS_MIGRATIONS,
  // Field by field: a bad field falls back alone, and the reading says which were reset or repaired.
  read: readUpgradedSettings,
});

/** The key, for tests and for code that must name it (nothing else reads or writes it directly). */
export const SETTINGS_KEY = settingsItem.key;
