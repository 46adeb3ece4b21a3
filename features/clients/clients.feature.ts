/**
 * Feature: the user's torrent clients (issue #9). Kept under their own storage.local key, apart
 * from the settings, each entry read on its own (a bad one is dropped alone), in the user's order.
 * The options page lists, saves, orders, removes, tests them; the popup asks every client what it
 * holds of a tab's torrents. Every saved client takes part (issue 33): other features take them all
 * from handles(), and which client holds a torrent and where its copy goes is decided in one place
 * (placement.ts), never by "the default client".
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
import { clientOrigin, syncClientOriginRules, type SessionRulesApi } from '../../utils/clients/csrf';
import { clientConfigSchema, createClient, toClientFailure, type ClientConfig, type ClientInfo, type TorrentClient } from '../../utils/clients/index';
import { clientBaseUrl, INFO_HASH } from '../../utils/clients/http';
import { readImportedClients, type ImportedClients } from './client-import';
import { steadyClient } from '../../utils/clients/steady';
import type { ClientTorrent } from '../../utils/clients/client-types';
import type { ClientAnswer, ClientForm, ClientProblem, ClientStatus, ClientsAnswer, ClientSummary, ClientView, CopyPlace, HeldTorrent } from './clients.messages';
import { whereCopyGoes } from './placement';
import type { ClientPreview } from '../settings/settings.messages';
import { clientHostPattern, isLoopbackClient } from '../../utils/clients/client-hosts';
import type { Shared } from '../context';
import type { Handlers } from '../../utils/messaging/protocol';
import type { clientsMessages } from './clients.messages';
import { MAX_CLIENT_NAME, MAX_SAVED_CLIENTS, clientsItem, defaultClientName, nameKey, storedClientSchema, withNames, type LoadedClients, type StoredClient } from './clients.storage';
import { brokenRule, removalRule, ruleField, type ClientRule } from './client-rules';

export type { StoredClient } from './clients.storage';

/** A saved client and the library client that talks to it (the same instance between calls, so a login is reused). */
export interface ClientHandle {
  config: StoredClient;
  client: TorrentClient;
}

/** A client slower than the first to answer by this much is said to be slow (the popup does not wait for it). */
export const SLOW_CLIENT_MS = 1_000;
/** How long a popup asking again (`wait`) takes a client's last answer rather than asking it twice. */
const ANSWER_AGAIN_MS = 30_000;

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
    const checked = withNames(next.slice(0, MAX_SAVED_CLIENTS).map((client) => storedClientSchema.parse(client)));
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
  const { id, type, url, name, username, password, skipCheckWhenFilesMatch, readOnly, copiesTo, folderPairs } = client;
  return { id, type, url, name, username, hasPassword: password !== '', skipCheckWhenFilesMatch, readOnly, ...(copiesTo && { copiesTo }), folderPairs: folderPairs.map((pair) => ({ ...pair })) };
}

export function summaryOf(client: StoredClient): ClientSummary {
  return { id: client.id, type: client.type, url: client.url, name: client.name, ...(client.readOnly && { readOnly: true }) };
}

function ruleProblem(rule: ClientRule): ClientProblem {
  const field = ruleField(rule);
  return { kind: 'rule', detail: rule.rule, rule, ...(field && { field }) };
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
    'clients:move': (message) => this.move(message.id, message.index),
    'clients:test': (message) => this.test(message),
    'client:status': (message) => this.status(message.tabId, message.wait),
  };

  /** At every start: session rules are gone after a browser restart or an extension reload. */
  async start(): Promise<void> {
    await this.syncRules();
  }

  // ----------------------------------------------------------------------------------------------
  // For other features (cross-seed, the client index)

  /**
   * Every saved client in the user's order, each with its library client (the same instance
   * between calls, so a login is reused); none when none is set up. Each talks to its own address only.
   */
  async handles(): Promise<ClientHandle[]> {
    // A woken background syncs its session rules first (start()); a request before that would meet the CSRF check.
    await this.rulesQueue;
    return (await this.store.get()).map((config) => ({ config, client: this.clientFor(config) }));
  }

  /**
   * Every saved client's configuration, in the user's order, without its library client: for what
   * only reads them (a list page's answer from the indexes), which need not wait for a woken
   * background's session rules as a request to a client must (handles()).
   */
  async configs(): Promise<StoredClient[]> {
    return this.store.get();
  }

  /** One saved client by its id, with its library client; undefined when it is not saved (any more). */
  async handle(id: string): Promise<ClientHandle | undefined> {
    return (await this.handles()).find((handle) => handle.config.id === id);
  }

  /**
   * For a client that cannot be asked now: which of `hashes` it held at its index's last sync (the
   * client index feature sets it; absent while nothing is indexed). A cross-seed never adds what a
   * client that is down held (placement.ts).
   */
  lastKnownHeld?: (config: StoredClient, hashes: readonly string[]) => Promise<ReadonlySet<string>>;

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

  /**
   * Adds or updates a client from the form. Refused, with the rule in words (client-rules.ts), when
   * the list it makes would break one: two clients of one Name, "Copies go to" a chain or a loop, to
   * a client that only reads or is gone, without a folder pair, or a folder that is no absolute path.
   */
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
    const id = existing?.id ?? newClientId();
    const others = list.filter((client) => client.id !== id);
    const typed = form.name?.trim().slice(0, MAX_CLIENT_NAME);
    const name = typed || (existing && clientKeyOf(existing) === clientKeyOf(config) ? existing.name : defaultClientName(config.type, config.url, (key) => others.some((client) => nameKey(client.name) === key)));
    const copiesTo = form.copiesTo === undefined ? existing?.copiesTo : form.copiesTo || undefined;
    const entry: StoredClient = {
      ...config,
      id,
      name,
      skipCheckWhenFilesMatch: form.skipCheckWhenFilesMatch ?? existing?.skipCheckWhenFilesMatch ?? false,
      readOnly: form.readOnly ?? existing?.readOnly ?? false,
      ...(copiesTo && { copiesTo }),
      // Pairs belong to a target: none kept without one.
      folderPairs: copiesTo ? (form.folderPairs ?? existing?.folderPairs ?? []).map((pair) => ({ from: pair.from.trim(), to: pair.to.trim() })).filter((pair) => pair.from || pair.to) : [],
    };
    const next = existing ? list.map((client) => (client.id === existing.id ? entry : client)) : [...list, entry];
    const broken = brokenRule(next, id);
    if (broken) return { problem: ruleProblem(broken) };
    await this.store.save(next);
    return this.answer(entry.id);
  }

  /** Removes a client; refused while another client sends its copies to it (that client would send them nowhere). */
  async remove(id: string): Promise<ClientsAnswer | { problem: ClientProblem }> {
    const list = await this.store.get();
    const named = removalRule(list, id);
    if (named) return { problem: ruleProblem(named) };
    if (list.some((client) => client.id === id)) await this.store.save(list.filter((client) => client.id !== id));
    return this.answer();
  }

  /** "Your clients": `id` moves to `index` in the user's order. */
  async move(id: string, index: number): Promise<ClientsAnswer> {
    const list = await this.store.get();
    const moving = list.find((client) => client.id === id);
    if (!moving) return this.answer();
    const rest = list.filter((client) => client !== moving);
    const at = Math.min(index, rest.length);
    if (list.indexOf(moving) !== at) await this.store.save([...rest.slice(0, at), moving, ...rest.slice(at)]);
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
   * The last question to each client, by client id and the hashes asked, with when it was asked: a
   * popup asking again with `wait` (a client was slow) takes the others' answers from it rather
   * than asking them twice, and joins the slow one's question under way.
   */
  private readonly asked = new Map<string, { at: number; answer: Promise<ClientAnswer> }>();

  /**
   * What every client holds among this tab's hashes and its candidates' info-hashes: one request
   * to each, all at once. Asked afresh each time: nothing is cached, so it is never stale. Only
   * the popup asks; the page's view never waits for it. A client that has not answered a second
   * after the first one did is `slow` (a popup asking again with `wait` joins its question).
   */
  async status(tabId: number, wait = false): Promise<ClientStatus> {
    const view = await this.shared.tabs.get(tabId);
    const pageHashes = view?.hashes.map((found) => found.hash) ?? [];
    if (!view || pageHashes.length === 0) return { state: 'no-hashes' };
    const handles = await this.handles();
    if (!handles.length) return { state: 'no-client' };
    const asked = [...new Set([...pageHashes, ...view.candidates.map((candidate) => candidate.infoHash)])].filter((hash) => INFO_HASH.test(hash));
    const questions = handles.map((handle) => this.ask(handle, asked, wait));
    const answers: (ClientAnswer | undefined)[] = wait ? await Promise.all(questions) : await firstThenGrace(questions, SLOW_CLIENT_MS);
    const clients = handles.map((handle, index): ClientAnswer => answers[index] ?? { state: 'slow', client: summaryOf(handle.config) });
    return { state: 'answered', asked, clients, copies: copyPlaces(handles.map((handle) => handle.config), clients, pageHashes) };
  }

  /** One client's answer about `asked` (never rejects: a failure is its answer); with `again`, the last one's when it is recent. */
  private ask(handle: ClientHandle, asked: readonly string[], again: boolean): Promise<ClientAnswer> {
    const key = `${handle.config.id}|${asked.join(',')}`;
    const now = Date.now();
    for (const [old, entry] of this.asked) if (now - entry.at > ANSWER_AGAIN_MS) this.asked.delete(old);
    const known = this.asked.get(key);
    if (again && known) return known.answer;
    const client = summaryOf(handle.config);
    const question = (async (): Promise<ClientAnswer> => {
      if (!(await this.reachable(handle.config))) return { state: 'problem', client, problem: this.noPermission(handle.config.url) };
      try {
        const held = await handle.client.lookup(asked);
        return { state: 'answered', client, held: Object.fromEntries([...held].map(([hash, torrent]) => [hash, heldTorrent(torrent)])) };
      } catch (error) {
        return { state: 'problem', client, problem: toClientFailure(error) };
      }
    })();
    this.asked.set(key, { at: now, answer: question });
    return question;
  }

  // ----------------------------------------------------------------------------------------------
  // Export and import (features/settings/settings.feature.ts)

  /**
   * The clients for an exported file, in the user's order; passwords only when asked for. A
   * "Copies go to" is written as the target's Name (ids are this browser's own).
   */
  async exported(includeCredentials: boolean): Promise<Record<string, unknown>[]> {
    const list = await this.store.get();
    return list.map(({ type, url, name, username, password, skipCheckWhenFilesMatch, readOnly, copiesTo, folderPairs }) => {
      const target = copiesTo ? list.find((client) => client.id === copiesTo)?.name : undefined;
      return {
        type,
        url,
        name,
        username,
        ...(includeCredentials ? { password } : {}),
        skipCheckWhenFilesMatch,
        readOnly,
        ...(target && { copiesTo: target, folderPairs }),
      };
    });
  }

  /**
   * An exported list, read entry by entry; undefined when it is not a list or any entry is unreadable
   * (a list taken only in part would be a surprise: the user decides again). See client-import.ts.
   */
  async readImported(value: unknown): Promise<ImportedClients | undefined> {
    return readImportedClients(value, await this.store.get(), newClientId);
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
  return clients.map(({ type, url, name, username, password, readOnly }) => ({ type, url, name, username, hasPassword: password !== '', readOnly }));
}

/** Where each page hash held complete by an answering client would have its copies go (the first such client in the user's order). */
function copyPlaces(configs: StoredClient[], answers: readonly ClientAnswer[], pageHashes: readonly string[]): Record<string, CopyPlace> {
  const places: Record<string, CopyPlace> = {};
  for (const hash of pageHashes) {
    for (const [index, answer] of answers.entries()) {
      const torrent = answer.state === 'answered' ? answer.held[hash] : undefined;
      if (!torrent || torrent.progress < 1) continue;
      const config = configs[index]!;
      const destination = whereCopyGoes(config, configs, torrent.savePath);
      if (destination.ok) {
        places[hash] = { from: config.name, into: destination.target.name, savePath: destination.savePath, viaPair: destination.viaPair };
        break;
      }
      places[hash] ??= { from: config.name, refused: destination.result };
    }
  }
  return places;
}

/** The same client (type and address) as far as a Name given by default goes. */
function clientKeyOf(config: Pick<StoredClient, 'type' | 'url'>): string {
  return `${config.type} ${config.url}`;
}

/**
 * The answers of `questions` as they are once all have come, or SLOW_CLIENT_MS after the first did,
 * whichever is sooner (undefined: not answered by then). Never rejects.
 */
export function firstThenGrace<T>(questions: readonly Promise<T>[], graceMs: number): Promise<(T | undefined)[]> {
  const answers: (T | undefined)[] = questions.map(() => undefined);
  if (!questions.length) return Promise.resolve(answers);
  return new Promise((resolve) => {
    let left = questions.length;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      if (timer !== undefined) clearTimeout(timer);
      resolve(answers.slice());
    };
    questions.forEach((question, index) => {
      void question.then(
        (answer) => {
          answers[index] = answer;
          if (--left === 0) done();
          else timer ??= setTimeout(done, graceMs);
        },
        () => {
          if (--left === 0) done();
          else timer ??= setTimeout(done, graceMs);
        },
      );
    });
  });
}
