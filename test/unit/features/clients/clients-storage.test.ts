/**
 * The clients' stored record (features/clients/clients.storage.ts): storage.local `clients`,
 * `{ version: 1, clients: [...] }`. Version 1 is its first shape: no migration step yet, so a
 * record without a version and one of a newer build are both read entry by entry, as always.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { CLIENTS_KEY, CLIENTS_MIGRATIONS, CLIENTS_VERSION, clientsItem, readClients } from '../../../../features/clients/clients.storage';

beforeEach(() => {
  fakeBrowser.reset();
});

const client = (id: string, isDefault = false) => ({ id, type: 'qbittorrent', url: `http://127.0.0.1:80${id.length}/`, username: 'admin', password: 'pw', isDefault });
const read = (id: string, isDefault: boolean) => ({ ...client(id, isDefault), url: `http://127.0.0.1:80${id.length}`, skipCheckWhenFilesMatch: false });

describe('the clients item', () => {
  it('is storage.local "clients", version 1, with no migration step yet', () => {
    expect([clientsItem.area, clientsItem.key, clientsItem.version]).toEqual(['local', 'clients', 1]);
    expect(CLIENTS_KEY).toBe('clients');
    expect(CLIENTS_VERSION).toBe(1);
    expect(Object.keys(CLIENTS_MIGRATIONS)).toEqual([]);
  });

  it('writes what it always wrote: { version, clients }', async () => {
    const { clients } = readClients({ clients: [client('a', true), client('bb')] });
    await clientsItem.set(clients);
    expect((await fakeBrowser.storage.local.get(CLIENTS_KEY))[CLIENTS_KEY]).toEqual({ version: 1, clients });
    expect(await clientsItem.get()).toEqual({ clients, dropped: 0 });
  });

  it('reads each entry alone: a bad or repeated one is dropped and counted, one default kept', async () => {
    await fakeBrowser.storage.local.set({ [CLIENTS_KEY]: { version: 1, clients: [client('a'), { id: 'bad' }, client('a'), client('bb', true)] } });
    expect(await clientsItem.get()).toEqual({ clients: [read('a', false), read('bb', true)], dropped: 2 });
  });

  it('reads a record without a version (version 0) as version 1', async () => {
    await fakeBrowser.storage.local.set({ [CLIENTS_KEY]: { clients: [client('a')] } });
    expect(await clientsItem.get()).toEqual({ clients: [read('a', true)], dropped: 0 });
  });

  it('reads a record of an unknown, newer version entry by entry, as the current code does', async () => {
    await fakeBrowser.storage.local.set({ [CLIENTS_KEY]: { version: CLIENTS_VERSION + 1, clients: [client('a'), { id: 'future', kind: 'new' }], extra: 1 } });
    expect(await clientsItem.get()).toEqual({ clients: [read('a', true)], dropped: 1 });
  });

  it('reads anything that is not such a record as no clients', async () => {
    for (const value of ['x', 7, [], null, { clients: 'no' }]) {
      await fakeBrowser.storage.local.set({ [CLIENTS_KEY]: value });
      expect(await clientsItem.get()).toEqual({ clients: [], dropped: 0 });
    }
  });
});
