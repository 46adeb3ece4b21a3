/**
 * Feature: the user's torrent clients (issue #9). Kept under their own storage.local key, apart
 * from the settings, each entry read on its own (a bad one is dropped alone), exactly one of them
 * the default. The options page lists, saves, removes, tests them; the popup asks what the default
 * client holds of a tab's torrents. Other features take the default client from defaultClient().
 *
 * Credentials: a client's password goes only to that client's own address, and only once the
 * browser granted it (the manifest's loopback hosts, or the optional permission the options page
 * asked for within the Save click). The library sends to the configured URL alone and never
 * follows a redirect (utils/clients/http.ts: `redirect: 'manual'`). The extension's pages get a
 * client without its password; a tracker page gets nothing of any of this.
 *
 * qBittorrent keeps its CSRF protection on: for every saved qBittorrent address a
 * declarativeNetRequest session rule (utils/clients/csrf.ts) gives the extension's own requests to
 * that origin the client's own Origin. The rules follow the saved clients, and an unsaved address
 * being tested gets one only for the length of the test.
 */
import { browser } from 'wxt/browser';
import { z } from 'zod';
import { clientOrigin, syncClientOriginRules, type SessionRulesApi } from '../../utils/clients/csrf';
import { clientConfigSchema, createClient, toClientFailure, type ClientConfig, type ClientInfo, type TorrentClient } from '../../utils/clients/index';
import { clientBaseUrl, INFO_HASH } from '../../utils/clients/http';
import { steadyClient } from '../../utils/clients/steady';
import type { ClientTorrent } from '../../utils/clients/client-types';
import type { ClientForm, ClientProblem, ClientStatus, ClientsAnswer, ClientSummary, ClientView, HeldTorrent } from './clients.messages';
import type { ClientPreview } from '../settings/settings.messages';
import { clientHostPattern, isLoopbackClient } from '../../utils/clients/client-hosts';
import type { Shared } from '../context';
import type { Handlers } from '../../utils/messaging/protocol';
import type { clientsMessages } from './clients.messages';
import { MAX_SAVED_CLIENTS, clientsItem, storedClientSchema, withOneDefault, type LoadedClients, type StoredClient } from './clients.storage';

export type { StoredClient } from './clients.storage';

/** A client in an exported file: no id needed, the password only when the user asked for it. */
const exportedClientSchema = clientConfigSchema.extend({
  password: z.string().max(2000).optional(),
  isDefault: z.boolean().default(false),
  skipCheckWhenFilesMatch: z.boolean().default(false),
});

function newClientId(): string {
  return crypto.randomUUID();
}

/** The clients' only writer; a copy in memory, dropped when another context of ours writes. */
export class ClientStore {
  private loaded: Promise<LoadedClients> | undefined;
  private readonly listeners: ((next: StoredClient[], previous: StoredClient[]) => void | Promise<void>)[] = [];

  constructor() {
    clientsItem.onChanged(() => (this.loaded = undefined));
  }

  load(): Promise<LoadedClients> {
    this.loaded ??= clientsItem.get();
    return this.loaded;
  }

  async get(): Promise<StoredClient[]> {
    return (await this.load()).clients;
  }

  /** Writes the list after checking it with the schema that reads it back. */
  async save(next: StoredClient[]): Promise<StoredClient[]> {
    const previous = await this.get();
    const checked = withOneDefault(next.slice(0, MAX_SAVED_CLIENTS).map((client) => storedClientSchema.parse(client)));
    await clientsItem.set(checked);
    this.loaded = Promise.resolve({ clients: checked, dropped: 0 });
    for (const listener of this.listeners) await listener(checked, previous);
    return checked;
  }

  onChange(listener: (next: StoredClient[], previous: StoredClient[]) => void | Promise<void>): void {
    this.listeners.push(listener);
  }
}

export function clientView(client: StoredClient): ClientView {
  const { id, type, url, username, password, isDefault, skipCheckWhenFilesMatch } = client;
  return { id, type, url, username, hasPassword: password !== '', isDefault, skipCheckWhenFilesMatch };
}

function summaryOf(client: StoredClient): ClientSummary {
  return { id: client.id, type: client.type, url: client.url };
}

function heldTorrent({ hash, name, savePath, state, progress, size }: ClientTorrent): HeldTorrent {
  return { hash, name, savePath, state, progress, size };
}

/** The browser's declarativeNetRequest, where it has one (both target browsers do; the unit tests' fake may not). */
function sessionRulesApi(): SessionRulesApi | undefined {
  const api = (browser as unknown as { declarativeNetRequest?: Partial<SessionRulesApi> }).declarativeNetRequest;
  return api?.getSessionRules && api.updateSessionRules ? (api as SessionRulesApi) : undefined;
}

export interface ClientRuntimeOptions {
  /** The fetch clients use; the browser's own when absent (its cookie jar keeps qBittorrent's session). */
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export class Clients {
  readonly store = new ClientStore();
  /** One library client per saved configuration: it keeps its login (qBittorrent, Deluge) between calls. */
  private readonly instances = new Map<string, { key: string; client: TorrentClient }>();
  /** Unsaved qBittorrent addresses under test, by origin: each has a session rule while its test runs. */
  private readonly underTest = new Map<string, number>();
  private rulesQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly shared: Shared,
    private readonly runtime: ClientRuntimeOptions = {},
  ) {
    this.store.onChange(async () => {
      await this.syncRules();
    });
  }

  readonly handlers: Handlers<typeof clientsMessages> = {
    'clients:list': () => this.answer(),
    'clients:save': (message) => this.save(message.client),
    'clients:remove': (message) => this.remove(message.id),
    'clients:set-default': (message) => this.setDefault(message.id),
    'clients:test': (message) => this.test(message),
    'client:status': (message) => this.status(message.tabId),
  };

  /** At every start: session rules are gone after a browser restart or an extension reload. */
  async start(): Promise<void> {
    await this.syncRules();
  }

  // ----------------------------------------------------------------------------------------------
  // For other features (cross-seed, the client index)

  /**
   * The user's default client and a library client for it (the same instance between calls, so a
   * login is reused), or undefined when none is set up. The client talks to its own address only.
   */
  async defaultClient(): Promise<{ config: StoredClient; client: TorrentClient } | undefined> {
    // A woken background syncs its session rules first (start()); a request before that would meet the CSRF check.
    await this.rulesQueue;
    const config = (await this.store.get()).find((client) => client.isDefault);
    return config ? { config, client: this.clientFor(config) } : undefined;
  }

  /** Whether the browser lets the extension reach this client's address (granted, or loopback in the manifest). */
  async reachable(config: Pick<StoredClient, 'url'>): Promise<boolean> {
    if (isLoopbackClient(config.url)) return true;
    const pattern = clientHostPattern(config.url);
    if (!pattern) return false;
    return browser.permissions.contains({ origins: [pattern] }).catch(() => false);
  }

  /** Called after every change to the saved clients (added, edited, removed, default moved, imported). */
  onChange(listener: (next: StoredClient[], previous: StoredClient[]) => void | Promise<void>): void {
    this.store.onChange(listener);
  }

  // ----------------------------------------------------------------------------------------------
  // The options page

  async answer(savedId?: string): Promise<ClientsAnswer> {
    const clients = (await this.store.get()).map(clientView);
    return savedId ? { clients, savedId } : { clients };
  }

  async save(form: ClientForm): Promise<ClientsAnswer | { problem: ClientProblem }> {
    const list = await this.store.get();
    const resolved = this.resolveForm(form, list);
    if ('problem' in resolved) return resolved;
    const { config } = resolved;
    if (!(await this.reachable(config))) return { problem: this.noPermission(config.url) };
    // Editing the same client again (or adding one already listed) updates it rather than adding a twin.
    const existing =
      list.find((client) => client.id === form.id) ??
      list.find((client) => client.type === config.type && client.url === config.url && client.username === config.username);
    if (!existing && list.length >= MAX_SAVED_CLIENTS) return { problem: { kind: 'bad-config', detail: `at most ${MAX_SAVED_CLIENTS} clients` } };
    const entry: StoredClient = {
      ...config,
      id: existing?.id ?? newClientId(),
      isDefault: existing?.isDefault ?? list.length === 0,
      skipCheckWhenFilesMatch: form.skipCheckWhenFilesMatch ?? existing?.skipCheckWhenFilesMatch ?? false,
    };
    await this.store.save(existing ? list.map((client) => (client.id === existing.id ? entry : client)) : [...list, entry]);
    return this.answer(entry.id);
  }

  async remove(id: string): Promise<ClientsAnswer> {
    const list = await this.store.get();
    if (list.some((client) => client.id === id)) await this.store.save(list.filter((client) => client.id !== id));
    return this.answer();
  }

  async setDefault(id: string): Promise<ClientsAnswer> {
    const list = await this.store.get();
    if (list.some((client) => client.id === id)) await this.store.save(list.map((client) => ({ ...client, isDefault: client.id === id })));
    return this.answer();
  }

  /** "Test client": what the client says it is, or why it could not be asked, in its own words where it gave any. */
  async test(request: { id?: string; client?: ClientForm }): Promise<{ info: ClientInfo } | { problem: ClientProblem }> {
    const list = await this.store.get();
    let config: ClientConfig;
    if (request.client) {
      const resolved = this.resolveForm({ ...request.client, id: request.client.id ?? request.id }, list);
      if ('problem' in resolved) return resolved;
      config = resolved.config;
    } else {
      const saved = list.find((client) => client.id === request.id);
      if (!saved) return { problem: { kind: 'unknown-client', detail: 'no such client' } };
      config = saved;
    }
    if (!(await this.reachable(config))) return { problem: this.noPermission(config.url) };
    const origin = config.type === 'qbittorrent' ? clientOrigin(config.url) : undefined;
    if (origin) {
      this.underTest.set(origin, (this.underTest.get(origin) ?? 0) + 1);
      await this.syncRules();
    }
    try {
      // A client of its own: the test logs in afresh and leaves the saved client's session alone.
      return { info: await createClient(config, this.runtime).test() };
    } catch (error) {
      return { problem: toClientFailure(error) };
    } finally {
      if (origin) {
        const left = (this.underTest.get(origin) ?? 1) - 1;
        if (left > 0) this.underTest.set(origin, left);
        else this.underTest.delete(origin);
        await this.syncRules();
      }
    }
  }

  // ----------------------------------------------------------------------------------------------
  // The popup

  /**
   * What the default client holds among this tab's hashes and its candidates' info-hashes: one
   * lookup, one request to the client (up to 200 hashes). Asked afresh each time: nothing is
   * cached, so it is never stale. Only the popup asks; the page's view never waits for it.
   */
  async status(tabId: number): Promise<ClientStatus> {
    const view = await this.shared.tabs.get(tabId);
    const pageHashes = view?.hashes.map((found) => found.hash) ?? [];
    if (!view || pageHashes.length === 0) return { state: 'no-hashes' };
    const found = await this.defaultClient();
    if (!found) return { state: 'no-client' };
    const client = summaryOf(found.config);
    if (!(await this.reachable(found.config))) return { state: 'problem', client, problem: this.noPermission(found.config.url) };
    const asked = [...new Set([...pageHashes, ...view.candidates.map((candidate) => candidate.infoHash)])].filter((hash) => INFO_HASH.test(hash));
    try {
      const held = await found.client.lookup(asked);
      return { state: 'answered', client, asked, held: Object.fromEntries([...held].map(([hash, torrent]) => [hash, heldTorrent(torrent)])) };
    } catch (error) {
      return { state: 'problem', client, problem: toClientFailure(error) };
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Export and import (features/settings/settings.feature.ts)

  /** The clients for an exported file; passwords only when asked for. */
  async exported(includeCredentials: boolean): Promise<Record<string, unknown>[]> {
    return (await this.store.get()).map(({ type, url, username, password, isDefault, skipCheckWhenFilesMatch }) => ({
      type,
      url,
      username,
      ...(includeCredentials ? { password } : {}),
      isDefault,
      skipCheckWhenFilesMatch,
    }));
  }

  /**
   * An exported list, read entry by entry; undefined when it is not a list or any entry is unreadable
   * (a list taken only in part would be a surprise: the user decides again). A client without a
   * password in the file keeps the one saved for the same type, address and user name.
   */
  async readImported(value: unknown): Promise<StoredClient[] | undefined> {
    if (!Array.isArray(value) || value.length > MAX_SAVED_CLIENTS) return undefined;
    const current = await this.store.get();
    const clients: StoredClient[] = [];
    for (const entry of value) {
      const parsed = exportedClientSchema.safeParse(entry);
      if (!parsed.success) return undefined;
      const url = clientBaseUrl(parsed.data.url);
      const same = current.find((client) => client.type === parsed.data.type && client.url === url && client.username === parsed.data.username);
      clients.push({
        ...parsed.data,
        url,
        id: same?.id ?? newClientId(),
        password: parsed.data.password ?? same?.password ?? '',
      });
    }
    return withOneDefault(clients);
  }

  async replaceAll(clients: StoredClient[]): Promise<void> {
    await this.store.save(clients);
  }

  /** Host-permission patterns these clients need that the browser has not granted. */
  async missingPermissions(clients: StoredClient[]): Promise<string[]> {
    const missing = new Set<string>();
    for (const client of clients) {
      const pattern = clientHostPattern(client.url);
      if (pattern && !(await this.reachable(client))) missing.add(pattern);
    }
    return [...missing];
  }

  // ----------------------------------------------------------------------------------------------

  /**
   * The library client for a saved configuration, kept while the configuration stays the same; its
   * repeatable calls ride out a moment's hiccup (utils/clients/steady.ts).
   */
  private clientFor(config: StoredClient): TorrentClient {
    const key = JSON.stringify([config.type, config.url, config.username, config.password]);
    const known = this.instances.get(config.id);
    if (known?.key === key) return known.client;
    const client = steadyClient(createClient(config, this.runtime));
    this.instances.set(config.id, { key, client });
    return client;
  }

  /**
   * The form's values as a configuration the library accepts, or the field refused. An empty
   * password on a saved client keeps its saved one, but only on the same origin: a password is
   * never carried to another address without the user typing it again.
   */
  private resolveForm(form: ClientForm, saved: StoredClient[]): { config: ClientConfig } | { problem: ClientProblem } {
    const parsed = clientConfigSchema.safeParse({ type: form.type, url: form.url, username: form.username, password: form.password });
    if (!parsed.success) {
      const field = String(parsed.error.issues[0]?.path[0] ?? 'url');
      return { problem: { kind: 'bad-config', detail: `${field}: ${parsed.error.issues[0]?.message ?? 'invalid'}`, field } };
    }
    const config: ClientConfig = { ...parsed.data, url: clientBaseUrl(parsed.data.url) };
    const existing = form.id ? saved.find((client) => client.id === form.id) : undefined;
    if (config.password === '' && existing?.password) {
      if (clientOrigin(existing.url) !== clientOrigin(config.url)) {
        return { problem: { kind: 'password-needed', detail: 'the address moved to another origin: type the password again', field: 'password', origin: clientOrigin(config.url) } };
      }
      config.password = existing.password;
    }
    return { config };
  }

  private noPermission(url: string): ClientProblem {
    return { kind: 'no-permission', detail: 'the browser has not granted this address', origin: clientOrigin(url) ?? url };
  }

  /** Session rules for every saved qBittorrent address and any under test; one update at a time. */
  private syncRules(): Promise<void> {
    const run = this.rulesQueue.then(async () => {
      const api = sessionRulesApi();
      if (!api) return;
      const saved = (await this.store.get()).filter((client) => client.type === 'qbittorrent').map((client) => client.url);
      await syncClientOriginRules(api, [...saved, ...this.underTest.keys()], browser.runtime.getURL('/'));
    });
    this.rulesQueue = run.catch(() => undefined);
    return run.catch(() => undefined);
  }
}

/** A client list as an import preview shows it (no password, only whether there is one). */
export function clientPreview(clients: StoredClient[]): ClientPreview[] {
  return clients.map(({ type, url, username, password, isDefault }) => ({ type, url, username, hasPassword: password !== '', isDefault }));
}
