/**
 * The clients' stored record (features/clients/clients.storage.ts): storage.local `clients`,
 * `{ version: 2, clients: [...] }`. Version 2 (issue 33): every client named, the list in the
 * user's order; version 1's default client goes first. A record without a version and one of a
 * newer build are read entry by entry, as always.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { CLIENTS_KEY, CLIENTS_MIGRATIONS, CLIENTS_VERSION, clientsItem, readClients } from '../../../../features/clients/clients.storage';

beforeEach(() => {
  fakeBrowser.reset();
});

const client = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: 'qbittorrent', url: `http://127.0.0.1:80${id.length}/`, username: 'admin', password: 'pw', ...extra });
const read = (id: string, name: string) => ({
  ...client(id),
  url: `http://127.0.0.1:80${id.length}`,
  name,
  skipCheckWhenFilesMatch: false,
  readOnly: false,
  folderPairs: [],
});

describe('the clients item', () => {
  it('is storage.local "clients", version 2, whose one step orders and names', () => {
    expect([clientsItem.area, clientsItem.key, clientsItem.version]).toEqual(['local', 'clients', 2]);
    expect(CLIENTS_KEY).toBe('clients');
    expect(CLIENTS_VERSION).toBe(2);
    expect(Object.keys(CLIENTS_MIGRATIONS)).toEqual(['2']);
  });

  it('writes { version, clients } with every field', async () => {
    const { clients } = readClients({ version: 2, clients: [client('a', { name: 'NAS' }), client('bb', { copiesTo: 'a', folderPairs: [{ from: '/a', to: '/b' }] })] });
    await clientsItem.set(clients);
    expect((await fakeBrowser.storage.local.get(CLIENTS_KEY))[CLIENTS_KEY]).toEqual({ version: 2, clients });
    expect(await clientsItem.get()).toEqual({ clients, dropped: 0 });
    expect(clients[1]).toMatchObject({ name: 'qBittorrent on 127.0.0.1', copiesTo: 'a', folderPairs: [{ from: '/a', to: '/b' }] });
  });

  it('reads version 1 entry by entry: a bad or repeated one dropped and counted, its default first, each named', async () => {
    await fakeBrowser.storage.local.set({ [CLIENTS_KEY]: { version: 1, clients: [client('a'), { id: 'bad' }, client('a'), client('bb', { isDefault: true })] } });
    expect(await clientsItem.get()).toEqual({ clients: [read('bb', 'qBittorrent on 127.0.0.1'), read('a', 'qBittorrent on 127.0.0.1:801')], dropped: 2 });
  });

  it('reads a record without a version (version 0) through the same step', async () => {
    await fakeBrowser.storage.local.set({ [CLIENTS_KEY]: { clients: [client('a')] } });
    expect(await clientsItem.get()).toEqual({ clients: [read('a', 'qBittorrent on 127.0.0.1')], dropped: 0 });
  });

  it('reads a record of an unknown, newer version entry by entry, as the current code does', async () => {
    await fakeBrowser.storage.local.set({ [CLIENTS_KEY]: { version: CLIENTS_VERSION + 1, clients: [client('a', { name: 'A' }), { id: 'future', kind: 'new' }], extra: 1 } });
    expect(await clientsItem.get()).toEqual({ clients: [read('a', 'A')], dropped: 1 });
  });

  it('reads anything that is not such a record as no clients', async () => {
    for (const value of ['x', 7, [], null, { clients: 'no' }]) {
      await fakeBrowser.storage.local.set({ [CLIENTS_KEY]: value });
      expect(await clientsItem.get()).toEqual({ clients: [], dropped: 0 });
    }
  });
});
