/**
 * The user's torrent clients' one stored record: storage.local `clients`, `{ version, clients }`,
 * apart from the settings. Each entry is read on its own (a bad or repeated one is dropped alone).
 *
 * Every saved client takes part (issue 33): the list's order is the user's ("Your clients"), and it
 * decides only ties (several clients holding a complete source: the first). Each client has a Name
 * every outcome uses, may only be read ("Only read this client": its torrents are sources and count
 * as held, nothing is added to it), and may send its copies to another client ("Copies go to", with
 * the folder pairs that say where that client sees this one's folders).
 */
import { z } from 'zod';
import { clientConfigSchema } from '../../utils/clients/index';
import { clientBaseUrl } from '../../utils/clients/http';
import { CLIENT_NAMES, type ClientKind } from '../../utils/clients/client-types';
import { MAX_FOLDER_PAIRS, MAX_FOLDER_PATH } from '../../utils/clients/folder-pairs';
import { defineStoredItem, upgrade, type Migrations, type Upgraded } from '../../utils/stored-item';

/**
 * 2: every client has a name; the list's order is the user's and the default client (version 1's
 * `isDefault`) goes first, so what it decided alone it now decides as the first in the order.
 */
export const CLIENTS_VERSION = 2;
export const CLIENTS_MIGRATIONS: Migrations = {
  2: (v1) => {
    const entries = Array.isArray(v1.clients) ? (v1.clients as unknown[]) : [];
    const isDefault = (entry: unknown) => !!entry && typeof entry === 'object' && (entry as { isDefault?: unknown }).isDefault === true;
    const first = entries.findIndex(isDefault);
    const ordered = first > 0 ? [entries[first], ...entries.filter((_, index) => index !== first)] : entries;
    return { ...v1, version: 2, clients: ordered.map((entry) => (entry && typeof entry === 'object' ? withoutKey(entry as Record<string, unknown>, 'isDefault') : entry)) };
  },
};
/** More than anyone runs; keeps the session rules (100 ids) and the list small. */
export const MAX_SAVED_CLIENTS = 20;
/** A client's Name, at most this long. */
export const MAX_CLIENT_NAME = 60;

function withoutKey(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = record;
  return rest;
}

export const clientIdSchema = z.string().regex(/^[A-Za-z0-9-]{1,64}$/);

export const folderPairSchema = z.object({ from: z.string().max(MAX_FOLDER_PATH), to: z.string().max(MAX_FOLDER_PATH) });

/** One saved client: its configuration (the library's own schema), id, Name, and what it takes part in. */
export const storedClientSchema = clientConfigSchema
  .extend({
    id: clientIdSchema,
    /** '' on a record written without one: given its default name when read (readUpgradedClients). */
    name: z.string().max(MAX_CLIENT_NAME * 4).default(''),
    /** Read by the cross-seed engine: add without the client's hash check when every file matches. */
    skipCheckWhenFilesMatch: z.boolean().default(false),
    /** "Only read this client": a source and a holder, never a place a copy is added to. */
    readOnly: z.boolean().default(false),
    /** "Copies go to": the id of the client its cross-seeds are added to (absent: this client). */
    copiesTo: clientIdSchema.optional(),
    /** With `copiesTo`: where that client sees this one's folders. */
    folderPairs: z.array(folderPairSchema).max(MAX_FOLDER_PAIRS).default([]),
  })
  // One spelling of an address (no trailing slash), so the same client is recognised as such.
  .transform((client) => ({ ...client, url: clientBaseUrl(client.url) }));
export type StoredClient = z.infer<typeof storedClientSchema>;

export interface LoadedClients {
  clients: StoredClient[];
  /** Stored entries that could not be read and were dropped. */
  dropped: number;
}

/** A name as names are compared: trimmed, one Unicode form, case folded ("NAS" and "nas " are one name). */
export function nameKey(name: string): string {
  return name.trim().normalize('NFC').toLocaleLowerCase('en');
}

/** The host (and, where `withPort`, the port) of a client address, for its default name. */
function hostOf(url: string, withPort: boolean): string {
  try {
    const parsed = new URL(url);
    return withPort && parsed.port ? parsed.host : parsed.hostname;
  } catch {
    return url;
  }
}

/**
 * A client's default Name: its type and host ("qBittorrent on 192.168.1.5"); with the port when
 * another client has that one, then numbered, so it is never another client's name.
 */
export function defaultClientName(type: ClientKind, url: string, taken: (key: string) => boolean = () => false): string {
  const plain = `${CLIENT_NAMES[type]} on ${hostOf(url, false)}`;
  if (!taken(nameKey(plain))) return plain;
  const withPort = `${CLIENT_NAMES[type]} on ${hostOf(url, true)}`;
  if (!taken(nameKey(withPort))) return withPort;
  return numberedName(withPort, taken);
}

/** `name (2)`, `name (3)`… the first not taken. */
export function numberedName(name: string, taken: (key: string) => boolean): string {
  for (let n = 2; ; n++) {
    const candidate = `${name.trim().slice(0, MAX_CLIENT_NAME - 5)} (${n})`;
    if (!taken(nameKey(candidate))) return candidate;
  }
}

/**
 * Every client with a name of its own: one without (a record of version 1, an entry written
 * without) gets its default name, and a name another client before it has is numbered. Nothing
 * else changes.
 */
export function withNames(clients: readonly StoredClient[]): StoredClient[] {
  const seen = new Set<string>();
  return clients.map((client, index) => {
    // Not a name already given, nor one a later client has of its own (it keeps it).
    const taken = (key: string) => seen.has(key) || clients.some((other, later) => later > index && other.name.trim() !== '' && nameKey(other.name) === key);
    let name = client.name.trim().slice(0, MAX_CLIENT_NAME);
    if (!name) name = defaultClientName(client.type, client.url, taken);
    else if (seen.has(nameKey(name))) name = numberedName(name, taken);
    seen.add(nameKey(name));
    return name === client.name ? client : { ...client, name };
  });
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
  return { clients: withNames(clients), dropped };
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
