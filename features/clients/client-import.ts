/**
 * Clients from a settings file (issue 33, item 8). The file carries every client's Name, the
 * order, "Only read", "Copies go to" (as the target's Name: ids are each browser's own) and the
 * folder pairs. Where a copy goes is the user's to decide, as a passkey's host is: a new target or
 * new folder pairs are each their own change in the import preview, unticked by default, and
 * without the user's tick the client keeps what it had. What the file gets wrong is repaired with a
 * sentence (two clients of one Name: the second numbered; a target the file does not have) or, for
 * a target change that would break a rule (a chain, a loop, a client that only reads, a folder
 * that is no absolute path), refused with that rule. Pure: no browser.
 */
import { z } from 'zod';
import { clientConfigSchema } from '../../utils/clients/index';
import { clientBaseUrl } from '../../utils/clients/http';
import { MAX_FOLDER_PAIRS, type FolderPair } from '../../utils/clients/folder-pairs';
import { brokenRule, type ClientRule } from './client-rules';
import { defaultClientName, folderPairSchema, MAX_CLIENT_NAME, MAX_SAVED_CLIENTS, nameKey, numberedName, type StoredClient } from './clients.storage';

/** A client in an exported file: no id, the password only when the user asked for it. */
const exportedClientSchema = clientConfigSchema.extend({
  password: z.string().max(2000).optional(),
  name: z.string().max(500).optional(),
  skipCheckWhenFilesMatch: z.boolean().default(false),
  readOnly: z.boolean().default(false),
  /** Files of version 1 said which client was the default: it goes first, as it decided alone. */
  isDefault: z.boolean().optional(),
  /** The target's Name. */
  copiesTo: z.string().max(500).optional(),
  folderPairs: z.array(folderPairSchema).max(MAX_FOLDER_PAIRS).default([]),
});

/** Where a client's copies go, by Names, as the preview shows it. */
export interface CopiesSetting {
  /** The target's Name; absent: the client itself. */
  copiesTo?: string;
  folderPairs: FolderPair[];
}

/** A new "Copies go to" or new folder pairs for one client: applied only when the user ticks it. */
export interface ClientTargetChange {
  /** The client's Name (as imported). */
  client: string;
  before: CopiesSetting;
  after: CopiesSetting;
  /** It would break this rule: it cannot be applied. */
  refused?: ClientRule;
}

export interface ImportedClients {
  /** The clients as the import stores them when no target change is ticked. */
  clients: StoredClient[];
  /** The targets and folder pairs the file changes, one change per client. */
  targets: ClientTargetChange[];
  /** What the file had wrong and was repaired (a Name numbered, a target the file does not have dropped). */
  repairs: ClientRule[];
  /** Each changed client's wanted setting, by its id (what a tick applies). */
  wanted: Map<string, { copiesTo?: string; folderPairs: FolderPair[] }>;
}

function samePairs(a: readonly FolderPair[], b: readonly FolderPair[]): boolean {
  return a.length === b.length && a.every((pair, index) => pair.from === b[index]!.from && pair.to === b[index]!.to);
}

/**
 * Reads an exported list against the clients saved now (a client of the same type, address and
 * user name keeps its id and, where the file has none, its password). Undefined when it is not a
 * list or any entry is unreadable.
 */
export function readImportedClients(value: unknown, current: readonly StoredClient[], newId: () => string): ImportedClients | undefined {
  if (!Array.isArray(value) || value.length > MAX_SAVED_CLIENTS) return undefined;
  const entries: z.infer<typeof exportedClientSchema>[] = [];
  for (const entry of value) {
    const parsed = exportedClientSchema.safeParse(entry);
    if (!parsed.success) return undefined;
    entries.push(parsed.data);
  }
  const first = entries.findIndex((entry) => entry.isDefault === true);
  if (first > 0) entries.unshift(...entries.splice(first, 1));

  const repairs: ClientRule[] = [];
  const names = new Set<string>();
  const clients: StoredClient[] = [];
  const fileTargets: { copiesTo?: string; folderPairs: FolderPair[] }[] = [];
  for (const [index, entry] of entries.entries()) {
    const url = clientBaseUrl(entry.url);
    const same = current.find((client) => client.type === entry.type && client.url === url && client.username === entry.username);
    const taken = (key: string) => names.has(key) || entries.some((other, later) => later > index && !!other.name?.trim() && nameKey(other.name) === key);
    let name = entry.name?.trim().slice(0, MAX_CLIENT_NAME) ?? '';
    if (!name) name = defaultClientName(entry.type, url, taken);
    else if (names.has(nameKey(name))) {
      repairs.push({ rule: 'same-name', name });
      name = numberedName(name, taken);
    }
    names.add(nameKey(name));
    clients.push({
      type: entry.type,
      url,
      username: entry.username,
      password: entry.password ?? same?.password ?? '',
      id: same?.id ?? newId(),
      name,
      skipCheckWhenFilesMatch: entry.skipCheckWhenFilesMatch,
      readOnly: entry.readOnly,
      folderPairs: [],
    });
    fileTargets.push({ ...(entry.copiesTo?.trim() && { copiesTo: entry.copiesTo.trim() }), folderPairs: entry.folderPairs });
  }

  // Without a tick: each client keeps its current target, where the file keeps that client too.
  for (const client of clients) {
    const same = current.find((saved) => saved.id === client.id);
    if (!same?.copiesTo) continue;
    if (clients.some((other) => other.id === same.copiesTo)) {
      client.copiesTo = same.copiesTo;
      client.folderPairs = same.folderPairs.map((pair) => ({ ...pair }));
    } else repairs.push({ rule: 'copies-target-missing', client: client.name });
  }

  // What the file changes untouched by a tick (a target made "Only read") may break a kept target: dropped, and said.
  for (let broken = brokenRule(clients); broken; broken = brokenRule(clients)) {
    const at = 'client' in broken ? clients.find((client) => client.name === broken.client && client.copiesTo) : undefined;
    if (!at) break;
    repairs.push(broken);
    clients[clients.indexOf(at)] = applied(at, { folderPairs: [] });
  }

  const byName = (name: string) => clients.find((client) => nameKey(client.name) === nameKey(name));
  const nameOf = (id: string | undefined) => (id ? clients.find((client) => client.id === id)?.name : undefined);
  const targets: ClientTargetChange[] = [];
  const wanted = new Map<string, { copiesTo?: string; folderPairs: FolderPair[] }>();
  for (const [index, client] of clients.entries()) {
    const file = fileTargets[index]!;
    const target = file.copiesTo ? byName(file.copiesTo) : undefined;
    const after = { ...(target && { copiesTo: target.id }), folderPairs: target ? file.folderPairs : [] };
    if (after.copiesTo === client.copiesTo && samePairs(after.folderPairs, client.folderPairs)) continue;
    const change: ClientTargetChange = {
      client: client.name,
      before: { ...(client.copiesTo && { copiesTo: nameOf(client.copiesTo) }), folderPairs: client.folderPairs },
      after: { ...(file.copiesTo && { copiesTo: target?.name ?? file.copiesTo }), folderPairs: file.folderPairs },
    };
    if (file.copiesTo && !target) change.refused = { rule: 'copies-target-missing', client: client.name };
    else {
      const alone = clients.map((other) => (other === client ? applied(other, after) : other));
      const broken = brokenRule(alone, client.id);
      if (broken) change.refused = broken;
    }
    if (!change.refused) wanted.set(client.id, after);
    targets.push(change);
  }
  return { clients, targets, repairs, wanted };
}

function applied(client: StoredClient, setting: { copiesTo?: string; folderPairs: FolderPair[] }): StoredClient {
  const { copiesTo: _old, ...rest } = client;
  return { ...rest, ...(setting.copiesTo && { copiesTo: setting.copiesTo }), folderPairs: setting.copiesTo ? setting.folderPairs.map((pair) => ({ ...pair })) : [] };
}

/**
 * The clients an import stores: the target changes the user ticked (by client Name) applied one by
 * one, each kept only while the list keeps every rule (two ticked changes that make a loop: the
 * second is refused, and named).
 */
export function withConfirmedTargets(imported: ImportedClients, confirmed: readonly string[]): { clients: StoredClient[]; refused: ClientRule[] } {
  let clients = imported.clients.map((client) => ({ ...client, folderPairs: client.folderPairs.map((pair) => ({ ...pair })) }));
  const refused: ClientRule[] = [];
  const ticked = new Set(confirmed.map(nameKey));
  for (const client of imported.clients) {
    const setting = imported.wanted.get(client.id);
    if (!setting || !ticked.has(nameKey(client.name))) continue;
    const next = clients.map((other) => (other.id === client.id ? applied(other, setting) : other));
    const broken = brokenRule(next, client.id);
    if (broken) refused.push(broken);
    else clients = next;
  }
  return { clients, refused };
}
