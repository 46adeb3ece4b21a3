/**
 * Feature: the settings as the options page sees them: read, save a partial update, export to a
 * file and import one. The SettingsStore stays the only writer.
 *
 * Credentials belong to a service address: a save or an import that moves the service elsewhere
 * carries the saved token (App ID, Secret) along only when the user confirms it, and an import is
 * shown as a list of changes before anything is applied.
 *
 * The torrent clients (features/clients, stored apart) travel in the same file under `clients`, their
 * passwords only when the user ticks "include credentials"; an import previews them too.
 */
import type { z } from 'zod';
import type { ImportAnswer, ImportField, ImportPreview, PreviewValue, SaveAnswer, SettingsView, SiteHostMove } from './settings.messages';
import {
  applySettingsUpdate,
  CREDENTIAL_FIELDS,
  entryCount,
  SITE_CREDENTIAL_FIELDS,
  exportSettings,
  isKnownServiceOrigin,
  settingsFields,
  type Settings,
  type SettingsField,
  type SiteOverride,
} from '../../utils/settings';
import { clientPreview, type Clients, type StoredClient } from '../clients/clients.feature';
import { withConfirmedTargets, type ImportedClients } from '../clients/client-import';
import { syncCustomSites } from '../sites/sites.feature';
import type { Shared } from '../context';
import { originAllowed } from '../../utils/permission-pattern';
import type { ServiceSite } from '../../utils/iyuu/answer-schemas';
import { normalizeHost, siteForHost } from '../../utils/sites';
import { siteForServiceSid } from '../../utils/sites/pinning';
import { siteName } from '../lookup/candidates';
import type { Handlers } from '../../utils/messaging/protocol';
import type { settingsMessages } from './settings.messages';


import { hostAndPortOf, originOf } from '../../utils/url';
/**
 * Whether two service addresses are the same service as far as credentials go: the same host
 * (http to https and back is the user's visible choice), or two of IYUU's own hosts.
 */
export function sameService(a: string, b: string): boolean {
  if (originOf(a) === originOf(b)) return true;
  if (isKnownServiceOrigin(a) && isKnownServiceOrigin(b)) return true;
  const host = hostAndPortOf(a);
  return host !== undefined && host === hostAndPortOf(b);
}

/** The saved credentials that `next` would carry, unchanged, to another service. */
function carriedCredentials(previous: Settings, next: Settings): (typeof CREDENTIAL_FIELDS)[number][] {
  if (sameService(previous.baseUrl, next.baseUrl)) return [];
  return CREDENTIAL_FIELDS.filter((field) => previous[field] !== '' && next[field] === previous[field]);
}

function withoutCarried(previous: Settings, next: Settings): Settings {
  const cleared: Settings = { ...next };
  for (const field of carriedCredentials(previous, next)) cleared[field as (typeof CREDENTIAL_FIELDS)[number]] = '';
  return cleared;
}

/** A value as the import preview shows it: credentials only as set / not set (site passkeys: which sites have one). */
export function previewValue(field: SettingsField, value: unknown): PreviewValue {
  if ((CREDENTIAL_FIELDS as readonly string[]).includes(field)) return { credential: value !== '' };
  if ((SITE_CREDENTIAL_FIELDS as readonly string[]).includes(field)) {
    return Object.fromEntries(Object.keys((value ?? {}) as Record<string, string>).map((sid) => [sid, { credential: true }]));
  }
  return value as PreviewValue;
}

/**
 * The sites an imported `siteOverrides` moves to a host that is not one of that site's catalogued
 * hosts (current, old or API): a site's passkey and the user's session follow only a host the user
 * confirmed, so each is shown and asked for on its own. Moving back to the catalogued host, or to
 * another of the site's own hosts, asks nothing.
 */
export function siteHostMoves(
  current: Readonly<Record<string, SiteOverride>>,
  next: Readonly<Record<string, SiteOverride>>,
  list: readonly ServiceSite[] | undefined,
): SiteHostMove[] {
  const moves: SiteHostMove[] = [];
  for (const [key, override] of Object.entries(next)) {
    const to = override.host && normalizeHost(override.host);
    if (!to || to === current[key]?.host) continue;
    const sid = Number(key);
    const entry = siteForServiceSid(sid, list);
    const owner = siteForHost(to);
    if (entry && owner === entry) continue;
    const listed = list?.find((site) => site.id === sid);
    moves.push({
      sid,
      name: siteName(sid, list).name,
      from: current[key]?.host ?? entry?.hosts[0] ?? listed?.base_url ?? '',
      to,
      ...(owner ? { owner: owner.nickname } : {}),
    });
  }
  return moves.sort((a, b) => a.sid - b.sid);
}

/**
 * The overrides an import stores: a confirmation is never read from the file; a host move the user
 * did not confirm leaves that site as it was; a confirmed move to a host no catalogued site has is
 * confirmed for that site (downloads may follow it); an unchanged host keeps its confirmation.
 */
export function importedOverrides(
  current: Readonly<Record<string, SiteOverride>>,
  next: Readonly<Record<string, SiteOverride>>,
  moves: readonly SiteHostMove[],
  confirmed: readonly number[],
): Record<string, SiteOverride> {
  const result: Record<string, SiteOverride> = {};
  for (const [key, { confirmedHost: _fromFile, ...override }] of Object.entries(next)) {
    const move = moves.find((entry) => String(entry.sid) === key);
    if (move && !confirmed.includes(move.sid)) {
      if (current[key]) result[key] = current[key];
      continue;
    }
    const kept = current[key]?.confirmedHost;
    if (move) result[key] = move.owner ? override : { ...override, confirmedHost: move.to };
    else result[key] = kept && kept === override.host ? { ...override, confirmedHost: kept } : override;
  }
  return result;
}

/** Whether two client lists differ in anything an import would change (passwords and the order included). */
function sameClients(a: StoredClient[], b: StoredClient[]): boolean {
  const key = (clients: StoredClient[]) =>
    JSON.stringify(
      clients.map(({ type, url, name, username, password, skipCheckWhenFilesMatch, readOnly, copiesTo, folderPairs }) => [type, url, name, username, password, skipCheckWhenFilesMatch, readOnly, copiesTo ?? '', folderPairs]),
    );
  return key(a) === key(b);
}

export class Preferences {
  constructor(
    private readonly shared: Shared,
    private readonly clients: Clients,
  ) {}

  readonly handlers: Handlers<typeof settingsMessages> = {
    'settings:get': () => this.settingsView(),
    'settings:save': (message) => this.saveSettings(message.update, message.keepCredentials ?? false),
    'settings:export': (message) => this.exportSettings(message.includeCredentials),
    'settings:import': (message) =>
      this.importSettings(message.data, message.apply ? { keepCredentials: message.keepCredentials ?? false, confirmSiteHosts: message.confirmSiteHosts ?? [], confirmClientTargets: message.confirmClientTargets ?? [] } : undefined),
  };

  async settingsView(): Promise<SettingsView> {
    const { settings, resetFields, repairedFields, unreadable } = await this.shared.settings.load();
    return { settings, resetFields, repairedFields, unreadable, serviceOriginGranted: await this.originGranted(settings.baseUrl) };
  }

  /**
   * A partial update from the options page. When it moves the service to another address while
   * keeping the saved credentials, nothing is saved until the user confirms (`keepCredentials`).
   */
  async saveSettings(update: unknown, keepCredentials = false): Promise<SaveAnswer> {
    const current = await this.shared.settings.get();
    let next: Settings;
    try {
      next = applySettingsUpdate(current, update);
    } catch (error) {
      const issue = (error as { issues?: { path?: PropertyKey[] }[] }).issues?.[0];
      return { refused: String(issue?.path?.[0] ?? 'settings') };
    }
    const carried = carriedCredentials(current, next);
    if (carried.length && !keepCredentials) return { confirm: 'credentials', origin: originOf(next.baseUrl) ?? next.baseUrl, fields: carried };
    await this.shared.settings.save(next);
    return this.settingsView();
  }

  async exportSettings(includeCredentials: boolean): Promise<{ json: string }> {
    const settings = await this.shared.settings.get();
    const clients = await this.clients.exported(includeCredentials);
    return {
      json: JSON.stringify(
        {
          ...exportSettings(settings, includeCredentials),
          // Left out when there are none, so restoring this file leaves clients added since alone.
          ...(clients.length ? { clients } : {}),
          exportedAt: new Date(this.shared.now()).toISOString(),
        },
        null,
        2,
      ),
    };
  }

  /**
   * An exported document, read field by field: what is valid is taken, what is not is named, and
   * credentials missing from the document (an export without them) are kept as they are — unless
   * the document moves the service elsewhere and the user did not confirm keeping them.
   * Without `apply` nothing is written: the answer is the list of changes to show the user.
   */
  async importSettings(data: unknown, apply?: { keepCredentials: boolean; confirmSiteHosts?: number[]; confirmClientTargets?: string[] }): Promise<ImportAnswer> {
    if (!data || typeof data !== 'object' || Array.isArray(data)) return { imported: [], skipped: [], error: 'unreadable' };
    const document = data as Record<string, unknown>;
    if (document.app !== 'reseed-lens') return { imported: [], skipped: [], error: 'not-ours' };
    const current = await this.shared.settings.get();
    const next: Record<string, unknown> = { ...current };
    const imported: ImportField[] = [];
    const skipped: string[] = [];
    for (const [field, schema] of Object.entries(settingsFields) as [SettingsField, z.ZodType][]) {
      if (document[field] === undefined) continue;
      const parsed = schema.safeParse(document[field]);
      // A list the file holds only partly valid is named, not half taken: the user decides again.
      if (parsed.success && entryCount(parsed.data) >= entryCount(document[field])) {
        next[field] = parsed.data;
        imported.push(field);
      } else skipped.push(field);
    }
    const currentClients = await this.clients.store.get();
    let nextClients: StoredClient[] | undefined;
    let importedClients: ImportedClients | undefined;
    if (document.clients !== undefined) {
      importedClients = await this.clients.readImported(document.clients);
      // A new target or folder pair is applied only on the user's tick for it (withConfirmedTargets).
      nextClients = importedClients && withConfirmedTargets(importedClients, apply?.confirmClientTargets ?? []).clients;
      if (nextClients) imported.push('clients');
      else skipped.push('clients');
    }
    const read = next as Settings;
    // A site moved to a host not its own is its own change, applied only on the user's yes for it.
    const list = await this.shared.directory.sites.peek(current.baseUrl).catch(() => undefined);
    const moves = siteHostMoves(current.siteOverrides, read.siteOverrides, list);
    read.siteOverrides = importedOverrides(current.siteOverrides, read.siteOverrides, moves, apply?.confirmSiteHosts ?? []);
    if (!apply) {
      const clientTargets = importedClients?.targets.length ? { clientTargets: importedClients.targets } : {};
      const clientRepairs = importedClients?.repairs.length ? { clientRepairs: importedClients.repairs } : {};
      return { imported, skipped, preview: { ...(await this.preview(current, read, currentClients, nextClients)), ...(moves.length ? { siteHosts: moves } : {}), ...clientTargets, ...clientRepairs } };
    }
    const applied = apply.keepCredentials ? read : withoutCarried(current, read);
    await this.shared.settings.save(applied);
    await syncCustomSites(applied.customHosts).catch(() => undefined);
    if (nextClients && !sameClients(currentClients, nextClients)) await this.clients.replaceAll(nextClients);
    return { view: await this.settingsView(), imported, skipped };
  }

  private async preview(current: Settings, next: Settings, currentClients: StoredClient[], nextClients: StoredClient[] | undefined): Promise<ImportPreview> {
    const changes: ImportPreview['changes'] = (Object.keys(settingsFields) as SettingsField[])
      .filter((field) => JSON.stringify(current[field]) !== JSON.stringify(next[field]))
      .map((field) => ({ field, before: previewValue(field, current[field]), after: previewValue(field, next[field]) }));
    if (nextClients && !sameClients(currentClients, nextClients)) {
      changes.push({ field: 'clients', before: clientPreview(currentClients), after: clientPreview(nextClients) });
    }
    const clientPermissions = nextClients ? await this.clients.missingPermissions(nextClients) : [];
    const movesService = current.baseUrl !== next.baseUrl;
    return {
      changes,
      ...(clientPermissions.length ? { clientPermissions } : {}),
      service: movesService
        ? {
            baseUrl: next.baseUrl,
            known: isKnownServiceOrigin(next.baseUrl),
            granted: await this.originGranted(next.baseUrl),
            plainHttp: next.baseUrl.startsWith('http:'),
          }
        : undefined,
      carriedCredentials: carriedCredentials(current, next),
    };
  }

  private async originGranted(baseUrl: string): Promise<boolean> {
    const origin = originOf(baseUrl);
    if (!origin) return false;
    return originAllowed(origin);
  }
}
