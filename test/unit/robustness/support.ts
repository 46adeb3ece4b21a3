/**
 * Shared by the robustness suites: the background (BackgroundApp) against the reference service over
 * real HTTP, a clock both sides agree on, the checks every view must pass whatever the service
 * said, and the count of bad inputs tried (printed at the end, with a floor so a suite cannot
 * shrink without notice).
 */
import { afterAll, expect } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp, type BackgroundOptions } from '../../../entrypoints/background/app';
import type { CandidateView, TabView } from '../../../features/lookup/lookup.messages';
import type { FoundHash, PageReading } from '../../../utils/pages/page-types';
import { DEFAULT_SETTINGS, storedSettings, type Settings } from '../../../utils/settings';
import { SETTINGS_KEY } from '../../../features/settings/settings.storage';
import { catalog, DEFAULT_DETAILS_PAGE } from '../../../utils/sites';
import type { ReferenceService } from '../../service/server';
import { grantOrigin } from '../support/permissions';

// ------------------------------------------------------------------------------------------------
// Bad inputs

let badInputs = 0;

/** Counts hostile inputs actually fed to the code under test (answers served, values parsed). */
export function tried(count = 1): void {
  badInputs += count;
}

/**
 * Prints "bad inputs tried: N" when the file is done and fails it below `floor`, so dropping
 * cases (or a fuzz run that stops early) cannot go unnoticed.
 */
export function reportBadInputs(suite: string, floor: number): void {
  afterAll(() => {
    console.log(`${suite}: bad inputs tried: ${badInputs}`);
    expect(badInputs, `${suite} tried too few bad inputs`).toBeGreaterThanOrEqual(floor);
  });
}

// ------------------------------------------------------------------------------------------------
// Time

/**
 * The extension's clock, which tests move forward. The reference service is told the same jump,
 * so both agree (no spurious "expired timestamp") unless a test skews the service on purpose.
 */
export class TestClock {
  private offsetMs = 0;
  constructor(private readonly service: ReferenceService) {}
  readonly now = (): number => Date.now() + this.offsetMs;
  advance(ms: number): void {
    this.offsetMs += ms;
    this.service.control.clockSkewSeconds += ms / 1000;
  }
}

// ------------------------------------------------------------------------------------------------
// The background

/** Settings as the options page saves them: a custom service address comes with its granted origin. */
export async function storeSettings(values: Partial<Settings>): Promise<void> {
  await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: storedSettings({ ...DEFAULT_SETTINGS, ...values }) });
  if (values.baseUrl) grantOrigin(values.baseUrl);
}

export function makeApp(clock: TestClock, extra: Partial<BackgroundOptions> = {}): BackgroundApp {
  return new BackgroundApp({ now: clock.now, retryDelaysMs: [10, 20], timeoutMs: 400, ...extra });
}

/** What a NexusPHP details page's content script reports for these hashes. */
export function readingOf(hashes: readonly string[], kind: PageReading['kind'] = hashes.length > 1 ? 'list' : 'details'): PageReading {
  const found: FoundHash[] = hashes.map((hash, index) => ({ hash, source: 'info-row', ...(kind === 'list' ? { row: String(index + 1) } : {}) }));
  return { engine: 'nexusphp', kind, hashes: found };
}

/** Hashes of the reference data that have candidates on other sites. */
export function hashesWithCandidates(service: ReferenceService): string[] {
  return service.index.groups.filter((group) => group.length > 1).flatMap((group) => group.map((member) => member.info_hash));
}

/** Every hash of the reference data on one site (by short name). */
export function hashOn(service: ReferenceService, site: string, skip = 0): { hash: string; torrentId: number } {
  const members = service.index.groups.filter((group) => group.length > 1).flatMap((group) => group.filter((member) => member.site === site));
  const member = members[skip];
  if (!member) throw new Error(`no torrent with candidates on ${site}`);
  return { hash: member.info_hash, torrentId: member.torrent_id };
}

/** The candidates the reference data holds for a hash, as (sid, torrent id) keys. */
export function expectedCandidates(service: ReferenceService, hash: string): string[] {
  const member = service.index.memberByHash.get(hash);
  if (!member) return [];
  return service.index.groups[member.group]!.filter((other) => other !== member)
    .map((other) => `${other.sid}:${other.torrent_id}`)
    .sort();
}

export const candidateKeys = (view: TabView): string[] => view.candidates.map((candidate) => `${candidate.sid}:${candidate.torrentId}`).sort();

export const requestsTo = (service: ReferenceService, path: string) => service.requests.filter((request) => request.path === path);
export const LOOKUP_PATH = '/reseed/index/index';
export const REPORT_PATH = '/reseed/sites/reportExisting';
export const SITES_PATH = '/reseed/sites/index';

// ------------------------------------------------------------------------------------------------
// What every view must be, whatever the service answered

/** Hosts a details link may go to, and the templates its path may come from. */
export interface LinkRules {
  hosts: Set<string>;
  templates: Set<string>;
}

/** The catalog's hosts and templates plus those of a site list the service served. */
export function linkRules(listed: readonly { base_url?: unknown; details_page?: unknown }[] = []): LinkRules {
  const hosts = new Set<string>(catalog.flatMap((entry) => entry.hosts));
  const templates = new Set<string>([DEFAULT_DETAILS_PAGE, ...catalog.map((entry) => entry.detailsPage)]);
  for (const site of listed) {
    if (typeof site.base_url === 'string') hosts.add(site.base_url.toLowerCase());
    if (typeof site.details_page === 'string' && site.details_page.trim()) templates.add(site.details_page);
  }
  return { hosts, templates };
}

/**
 * A details link is `http(s)://<allowed host>/<allowed template with the numeric id>`, exactly,
 * and nothing else: no port, no user info, no other placeholder, no script.
 */
export function expectSafeLink(link: string, torrentId: number, rules: LinkRules): void {
  expect(Number.isSafeInteger(torrentId) && torrentId >= 0, `torrent id ${torrentId}`).toBe(true);
  const url = new URL(link);
  expect(['http:', 'https:'], link).toContain(url.protocol);
  expect(rules.hosts.has(url.hostname), `${link}: host not catalogued or listed`).toBe(true);
  expect(url.port + url.username + url.password, link).toBe('');
  const id = String(torrentId);
  const fromTemplate = [...rules.templates].some((template) => {
    const path = template.replace(/^\//, '').replaceAll('{}', id).replaceAll('{id}', id);
    return new URL(`${url.protocol}//${url.hostname}/${path}`).href === link;
  });
  expect(fromTemplate, `${link}: not a template with id ${id}`).toBe(true);
}

/** Checks every candidate of a view, and that the view carries no secret. */
export function expectSafeView(view: TabView, rules: LinkRules, secrets: readonly string[] = []): void {
  const text = JSON.stringify(view);
  for (const secret of secrets) if (secret) expect(text, 'a secret in a view').not.toContain(secret);
  const asked = new Set(view.hashes.map((found) => found.hash));
  for (const candidate of view.candidates) {
    expectSafeCandidate(candidate, rules);
    expect(asked.has(candidate.forHash), `${candidate.forHash} was not asked`).toBe(true);
  }
  if (view.error) expect(typeof view.error.kind).toBe('string');
}

export function expectSafeCandidate(candidate: CandidateView, rules: LinkRules): void {
  expect(Number.isSafeInteger(candidate.sid) && candidate.sid >= 0).toBe(true);
  expect(candidate.infoHash).toMatch(/^[0-9a-f]{40}$/);
  expect(typeof candidate.siteName).toBe('string');
  if (candidate.detailsUrl !== undefined) expectSafeLink(candidate.detailsUrl, candidate.torrentId, rules);
}
