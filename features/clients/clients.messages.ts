/** The user's torrent clients: saved (in the user's order), tested, and what each holds for the popup. */
import { z } from 'zod';
import { message } from '../../utils/messaging/protocol';
import type { ClientFailure } from '../../utils/clients/client-errors';
import { CLIENT_KINDS, type ClientInfo, type ClientKind, type ClientTorrent } from '../../utils/clients/client-types';
import { MAX_FOLDER_PAIRS, MAX_FOLDER_PATH, type FolderPair } from '../../utils/clients/folder-pairs';
import { clientId, tabId } from '../../utils/messaging/fields';
import type { ClientRule } from './client-rules';
import type { CrossSeedResult } from '../../utils/cross-seed-engine/cross-seed';

/** A saved torrent client as the extension's pages see it: everything but the password. */
export interface ClientView {
  id: string;
  type: ClientKind;
  url: string;
  /** What every outcome, list and report calls it. */
  name: string;
  username: string;
  hasPassword: boolean;
  /** A cross-seed whose every file matches the client's torrent is added without the client's hash check. */
  skipCheckWhenFilesMatch: boolean;
  /** "Only read this client": its torrents are sources and count as held; nothing is added to it. */
  readOnly: boolean;
  /** "Copies go to": the id of the client its cross-seeds go to (absent: this client). */
  copiesTo?: string;
  folderPairs: FolderPair[];
}

export interface ClientsAnswer {
  clients: ClientView[];
  /** The id of the client just saved. */
  savedId?: string;
}

/** The client form's values. */
export interface ClientForm {
  id?: string;
  type: ClientKind;
  url: string;
  /** '' or absent: its default name (type and host). */
  name?: string;
  username: string;
  password: string;
  skipCheckWhenFilesMatch?: boolean;
  readOnly?: boolean;
  /** '' or absent: this client. */
  copiesTo?: string;
  folderPairs?: FolderPair[];
}

/**
 * Why a client could not be used, for the UI to say in words: the library's failure kinds, plus
 * - `no-permission`: the browser has not granted the client's address (`origin`);
 * - `password-needed`: the address moved to another origin, so the saved password is not sent there;
 * - `unknown-client`: the client was removed meanwhile.
 */
export interface ClientProblem extends Omit<ClientFailure, 'kind'> {
  kind: ClientFailure['kind'] | 'no-permission' | 'password-needed' | 'unknown-client' | 'rule';
  /** The client's origin (no-permission, password-needed). */
  origin?: string;
  /** The form field at fault (bad-config, password-needed, rule): type, url, name, username, password, copiesTo or folderPairs. */
  field?: string;
  /** `rule`: what the list of clients would break (client-rules.ts), in the Names the sentence says. */
  rule?: ClientRule;
}

/** A torrent the client holds, as the popup shows it. */
export type HeldTorrent = Pick<ClientTorrent, 'hash' | 'name' | 'savePath' | 'state' | 'progress' | 'size'>;

/** The client a status is about (no credentials). */
export interface ClientSummary {
  id: string;
  type: ClientKind;
  url: string;
  name: string;
  readOnly?: boolean;
}

/**
 * One client's answer for a tab:
 * - `answered`: `held` has every hash asked that this client holds;
 * - `problem`: it could not be asked (its failure in `problem`);
 * - `slow`: it had not answered when the others had (and a second after the first of them).
 */
export type ClientAnswer =
  | { state: 'answered'; client: ClientSummary; held: Record<string, HeldTorrent> }
  | { state: 'problem'; client: ClientSummary; problem: ClientProblem }
  | { state: 'slow'; client: ClientSummary };

/**
 * What the user's clients hold for a tab, for the popup only (never the page: see page-view.ts).
 * - `no-hashes`: nothing on this page to ask about (not a tracker page, or no hash yet);
 * - `no-client`: no client set up;
 * - `answered`: every client's answer, in the user's order, about `asked` (the page's hashes and
 *   its candidates').
 */
export type ClientStatus =
  | { state: 'no-hashes' }
  | { state: 'no-client' }
  | {
      state: 'answered';
      asked: string[];
      clients: ClientAnswer[];
      /**
       * Per page hash held complete by a client that answered: where a copy of it goes (placement.ts
       * whereCopyGoes: the first such client in the user's order, its "Copies go to" and folder pair).
       */
      copies?: Record<string, CopyPlace>;
    };

/** Where a page torrent's copies go: a client (by Name) and the save path, or why nowhere (an engine result, for its words). */
export type CopyPlace = { from: string; into: string; savePath: string; viaPair: boolean } | { from: string; refused: CrossSeedResult };

/**
 * The client form as the options page sends it. Only its shape and sizes here: the clients feature
 * checks the values (the address above all) and says which field it refuses.
 */
export const clientFormSchema = z.object({
  id: clientId.optional(),
  type: z.enum(CLIENT_KINDS),
  url: z.string().max(2000),
  name: z.string().max(500).optional(),
  username: z.string().max(500),
  password: z.string().max(2000),
  skipCheckWhenFilesMatch: z.boolean().optional(),
  readOnly: z.boolean().optional(),
  copiesTo: z.union([clientId, z.literal('')]).optional(),
  folderPairs: z.array(z.object({ from: z.string().max(MAX_FOLDER_PATH), to: z.string().max(MAX_FOLDER_PATH) })).max(MAX_FOLDER_PAIRS).optional(),
});

export const clientsMessages = {
  /** Options page: the user's torrent clients, never with their passwords. */
  'clients:list': message<ClientsAnswer>()('extension', z.object({})),
  /**
   * Adds (no id) or updates a client. An empty password on an update keeps the saved one, as long
   * as the address stays on the same origin. The page asked for the origin's permission first.
   */
  'clients:save': message<ClientsAnswer | { problem: ClientProblem }>()('extension', z.object({ client: clientFormSchema })),
  /** Removes a client; refused (`problem`, rule `target-named`) while another sends its copies to it. */
  'clients:remove': message<ClientsAnswer | { problem: ClientProblem }>()('extension', z.object({ id: clientId })),
  /** "Your clients": moves a client to `index` in the user's order (the order decides only ties). */
  'clients:move': message<ClientsAnswer>()('extension', z.object({ id: clientId, index: z.number().int().nonnegative().max(100) })),
  /** "Test client": a saved client (`id`), or the form's unsaved values (`client`, with `id` when editing one). */
  'clients:test': message<{ info: ClientInfo } | { problem: ClientProblem }>()(
    'extension',
    z.object({ id: clientId.optional(), client: clientFormSchema.optional() }),
  ),
  /**
   * Popup: what every client holds of this tab's torrents and their candidates (one request to
   * each, in parallel). A client slower than the others by a second is `slow`; asked again with
   * `wait`, the answer waits for it (up to its request's own timeout).
   */
  'client:status': message<ClientStatus>()('extension', z.object({ tabId, wait: z.boolean().optional() })),
};
