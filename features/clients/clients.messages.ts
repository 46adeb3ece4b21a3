/** The user's torrent clients: saved, tested, the default one, and what it holds for the popup. */
import { z } from 'zod';
import { message } from '../../utils/messaging/protocol';
import type { ClientFailure } from '../../utils/clients/client-errors';
import { CLIENT_KINDS, type ClientInfo, type ClientKind, type ClientTorrent } from '../../utils/clients/client-types';
import { clientId, tabId } from '../../utils/messaging/fields';

/** A saved torrent client as the extension's pages see it: everything but the password. */
export interface ClientView {
  id: string;
  type: ClientKind;
  url: string;
  username: string;
  hasPassword: boolean;
  isDefault: boolean;
  /** A cross-seed whose every file matches the client's torrent is added without the client's hash check. */
  skipCheckWhenFilesMatch: boolean;
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
  username: string;
  password: string;
  skipCheckWhenFilesMatch?: boolean;
}

/**
 * Why a client could not be used, for the UI to say in words: the library's failure kinds, plus
 * - `no-permission`: the browser has not granted the client's address (`origin`);
 * - `password-needed`: the address moved to another origin, so the saved password is not sent there;
 * - `unknown-client`: the client was removed meanwhile.
 */
export interface ClientProblem extends Omit<ClientFailure, 'kind'> {
  kind: ClientFailure['kind'] | 'no-permission' | 'password-needed' | 'unknown-client';
  /** The client's origin (no-permission, password-needed). */
  origin?: string;
  /** The form field at fault (bad-config, password-needed): type, url, username or password. */
  field?: string;
}

/** A torrent the client holds, as the popup shows it. */
export type HeldTorrent = Pick<ClientTorrent, 'hash' | 'name' | 'savePath' | 'state' | 'progress' | 'size'>;

/** The client a status is about (no credentials). */
export interface ClientSummary {
  id: string;
  type: ClientKind;
  url: string;
}

/**
 * What the default client holds for a tab, for the popup only (never the page: see page-view.ts).
 * - `no-hashes`: nothing on this page to ask about (not a tracker page, or no hash yet);
 * - `no-client`: no client set up;
 * - `problem`: the client could not be asked (its failure in `problem`);
 * - `answered`: `held` has every hash among `asked` (the page's and its candidates') the client holds.
 */
export type ClientStatus =
  | { state: 'no-hashes' }
  | { state: 'no-client' }
  | { state: 'problem'; client: ClientSummary; problem: ClientProblem }
  | { state: 'answered'; client: ClientSummary; asked: string[]; held: Record<string, HeldTorrent> };

/**
 * The client form as the options page sends it. Only its shape and sizes here: the clients feature
 * checks the values (the address above all) and says which field it refuses.
 */
export const clientFormSchema = z.object({
  id: clientId.optional(),
  type: z.enum(CLIENT_KINDS),
  url: z.string().max(2000),
  username: z.string().max(500),
  password: z.string().max(2000),
  skipCheckWhenFilesMatch: z.boolean().optional(),
});

export const clientsMessages = {
  /** Options page: the user's torrent clients, never with their passwords. */
  'clients:list': message<ClientsAnswer>()('extension', z.object({})),
  /**
   * Adds (no id) or updates a client. An empty password on an update keeps the saved one, as long
   * as the address stays on the same origin. The page asked for the origin's permission first.
   */
  'clients:save': message<ClientsAnswer | { problem: ClientProblem }>()('extension', z.object({ client: clientFormSchema })),
  'clients:remove': message<ClientsAnswer>()('extension', z.object({ id: clientId })),
  'clients:set-default': message<ClientsAnswer>()('extension', z.object({ id: clientId })),
  /** "Test client": a saved client (`id`), or the form's unsaved values (`client`, with `id` when editing one). */
  'clients:test': message<{ info: ClientInfo } | { problem: ClientProblem }>()(
    'extension',
    z.object({ id: clientId.optional(), client: clientFormSchema.optional() }),
  ),
  /** Popup: what the default client holds of this tab's torrents and their candidates (one request to it). */
  'client:status': message<ClientStatus>()('extension', z.object({ tabId })),
};
