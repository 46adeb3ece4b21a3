/**
 * What a list of clients must be for every copy to go where the user said (issue 33, item 9): one
 * Name per client; "Copies go to" one step only (A → B, never A → B → C nor A → B → A), to a saved
 * client that takes copies (not "Only read"), with folder pairs of absolute paths. A save that
 * would break one is refused with the rule it breaks (the options page says it in words); an
 * import repairs what it can and shows each repair (settings.feature.ts). Pure: no browser.
 */
import { isAbsoluteFolder } from '../../utils/clients/folder-pairs';
import { nameKey, type StoredClient } from './clients.storage';

/** A rule a client list breaks, with the Names (and the path) the sentence needs. */
export type ClientRule =
  /** Two clients named alike (names are compared trimmed and case-folded). */
  | { rule: 'same-name'; name: string }
  /** `client` sends its copies to `target`, which sends its own to `next`: a copy goes one step only. */
  | { rule: 'copies-chain'; client: string; target: string; next: string }
  /** `client` and `target` send their copies to each other. */
  | { rule: 'copies-loop'; client: string; target: string }
  /** `client`'s "Copies go to" names a client no longer saved. */
  | { rule: 'copies-target-missing'; client: string }
  /** `client`'s copies would go to `target`, which only reads. */
  | { rule: 'copies-target-read-only'; client: string; target: string }
  /** `client` sends its copies elsewhere without a folder pair to say where that client sees its folders. */
  | { rule: 'no-folder-pair'; client: string }
  /** A folder of `client`'s pairs is not an absolute path. */
  | { rule: 'folder-not-absolute'; client: string; path: string }
  /** `target` is where `client` sends its copies: it is not removed while named. */
  | { rule: 'target-named'; target: string; client: string };

/** The form field a rule is about, for the options page to mark. */
export function ruleField(rule: ClientRule): 'name' | 'copiesTo' | 'folderPairs' | undefined {
  switch (rule.rule) {
    case 'same-name':
      return 'name';
    case 'folder-not-absolute':
    case 'no-folder-pair':
      return 'folderPairs';
    case 'target-named':
      return undefined;
    default:
      return 'copiesTo';
  }
}

/**
 * The first rule the list breaks, looking at `about` first (the client being saved) so the
 * sentence is about what the user just did; undefined when it keeps them all.
 */
export function brokenRule(clients: readonly StoredClient[], about?: string): ClientRule | undefined {
  const byId = new Map(clients.map((client) => [client.id, client]));
  const ordered = about ? [...clients.filter((client) => client.id === about), ...clients.filter((client) => client.id !== about)] : [...clients];
  for (const client of ordered) {
    const twin = clients.find((other) => other.id !== client.id && nameKey(other.name) === nameKey(client.name));
    if (twin) return { rule: 'same-name', name: client.name.trim() };
  }
  for (const client of ordered) {
    // Pairs first: a folder that is no absolute path is wrong whatever the target.
    const relative = client.folderPairs.flatMap((pair) => [pair.from, pair.to]).find((path) => !isAbsoluteFolder(path));
    if (relative !== undefined) return { rule: 'folder-not-absolute', client: client.name, path: relative };
    if (!client.copiesTo) continue;
    const target = byId.get(client.copiesTo);
    if (!target) return { rule: 'copies-target-missing', client: client.name };
    if (target.id === client.id) return { rule: 'copies-loop', client: client.name, target: client.name };
    if (target.copiesTo === client.id) return { rule: 'copies-loop', client: client.name, target: target.name };
    if (target.copiesTo) return { rule: 'copies-chain', client: client.name, target: target.name, next: byId.get(target.copiesTo)?.name ?? target.copiesTo };
    if (target.readOnly) return { rule: 'copies-target-read-only', client: client.name, target: target.name };
    if (!client.folderPairs.length) return { rule: 'no-folder-pair', client: client.name };
  }
  return undefined;
}

/** Why `id` may not be removed now: another client sends its copies to it. */
export function removalRule(clients: readonly StoredClient[], id: string): ClientRule | undefined {
  const target = clients.find((client) => client.id === id);
  const sender = clients.find((client) => client.id !== id && client.copiesTo === id);
  return target && sender ? { rule: 'target-named', target: target.name, client: sender.name } : undefined;
}
