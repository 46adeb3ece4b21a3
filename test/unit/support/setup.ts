/** Run before every unit test file: browser parts the fake browser lacks. */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach } from 'vitest';
import { installPermissions } from './permissions';

installPermissions();

// IndexedDB (the client index's store): Node has none, fake-indexeddb stands in as the engine; each
// test starts from an empty one, as each starts from an empty storage.local (fakeBrowser.reset()).
beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});
