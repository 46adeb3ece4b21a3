/**
 * The user's torrent clients' one stored record: storage.local `clients`, `{ version, clients }`,
 * apart from the settings. Each entry is read on its own (a bad or repeated one is dropped alone),
 * and exactly one of them is the default.
 */
import { z } from 'zod';
import { clientConfigSchema } from '../../utils/clients/index';
import { clientBaseUrl } from '../../utils/clients/http';
import { defineStoredItem, upgrade, type Migrations, type Upgraded } from '../../utils/stored-item';

export const CLIENTS_VERSION = 1;
/**
 * No step yet: version 1 is the first shape, and a record without a version (none was ever
 * written so) or of a newer build is read entry by entry all the same.
 */
export const CLIENTS_MIGRATIONS: Migrations = {};
/** More than anyone runs; keeps the session rules (100 ids) and the list small. */
export const MAX_SAVED_CLIENTS = 20;

const clientIdSchema = z.string().regex(/^[A-Za-z0-9-]{1,64}$/);

/** One saved client: its configuration (the library's own schema), id, default flag and cross-seed choice. */
export const storedClientSchema = clientConfigSchema
  .extend({
    id: clientIdSchema,
    isDefault: z.boolean().default(false),
    /** Read by the cross-seed engine: add without the client's hash check when every file matches. */
    skipCheckWhenFilesMatch: z.boolean().default(false),
  })
  // One spelling of an address (no trailing slash), so the same client is recognised as such.
  .transform((client) => ({ ...client, url: clientBaseUrl(client.url) }));
export type StoredClient = z.infer<typeof storedClientSchema>;

export interface LoadedClients {
  clients: StoredClient[];
  /** Stored entries that could not be read and were dropped. */
  dropped: number;
}

/** At most one default; the first client when none is marked. */
export function withOneDefault(clients: StoredClient[]): StoredClient[] {
  const chosen = clients.find((client) => client.isDefault)?.id ?? clients[0]?.id;
  return clients.map((client) => (client.isDefault === (client.id === chosen) ? client : { ...client, isDefault: client.id === chosen }));
}

/** Reads whatever is stored into valid clients: each entry on its own, a bad or repeated one dropped alone. */
export function readClients(stored: unknown): LoadedClients {
  return readUpgradedClients(upgrade(stored, CLIENTS_VERSION, CLIENTS_MIGRATIONS));
}

/** The clients of a stored record already brought up to CLIENTS_VERSION. */
export function readUpgradedClients({ value }: Upgraded): LoadedClients {
  const entries = Array.isArray(value.clients) ? (value.clients as unknown[]) : [];
  const clients: StoredClient[] = [];
  let dropped = 0;
  for (const entry of entries) {
    const parsed = storedClientSchema.safeParse(entry);
    if (!parsed.success || clients.some((client) => client.id === parsed.data.id) || clients.length >= MAX_SAVED_CLIENTS) dropped++;
    else clients.push(parsed.data);
  }
  return { clients: withOneDefault(clients), dropped };
}

export const clientsItem = defineStoredItem({
  area: 'local',
  key: 'clients',
  schema: z.array(storedClientSchema).max(MAX_SAVED_CLIENTS),
  version: CLIENTS_VERSION,
  migrations: CLIENTS_MIGRATIONS,
  toStored: (clients) => ({ clients }),
  read: readUpgradedClients,
});

/** The key, for tests and for code that must name it (nothing else reads or writes it directly). */
export const CLIENTS_KEY = clientsItem.key;
