/**
 * Page fixtures (test/fixtures/pages) served under real catalogued tracker hosts, with the reading
 * each fixture's .json states moved to that host, and reference-service torrent groups that put a
 * page's hash on its own site with candidates elsewhere.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page as PlaywrightPage } from 'playwright-core';
import { FIXTURE_PAGES_DIR, fixture, type BrowserKind, type HarnessPage, type PageSpec, type StaticPages } from '../harness/index.ts';
import { loadReferenceData, type ReferenceData } from '../../service/server';
import type { FoundHash, PageReading } from '../../../utils/pages/page-types';

export interface FixtureReading {
  engine: string;
  kind: 'details' | 'list';
  hashes: FoundHash[];
  problem?: PageReading['problem'];
  torrentFileUrl?: string;
  rows?: PageReading['rows'];
}

interface FixtureFile {
  url: string;
  html?: string;
  ajax?: Record<string, string>;
  expect: FixtureReading | null;
}

export interface ServedPage {
  fixture: string;
  host: string;
  scheme: 'http' | 'https';
  /** Path and query the page is served at (no fragment). */
  path: string;
  /** What the browser opens (the fixture's fragment kept). */
  url: string;
  html: string;
  /** The reading the fixture states, moved to this host. */
  expect: FixtureReading;
  /** The site's own JSON answers (Gazelle's ajax.php), by path and query. */
  ajax: Record<string, PageSpec>;
}

export interface ServeOptions {
  /** 'https' only for hosts a browser forces to https (see serveOverHttps); the router serves http. */
  scheme?: 'http' | 'https';
  /** Serve at this path and query instead of the fixture's own. */
  path?: string;
  /** Replace a hash of the fixture (both cases) with another, in the page and its expected reading. */
  swapHash?: { from: string; to: string };
  /** Any further edit of the page (a script, a link), after the host was moved. */
  edit?: (html: string) => string;
  /** The site's JSON answers by path: a fixture file name (overrides the fixture's own table). */
  ajax?: Record<string, string>;
}

export function readFixture(name: string): FixtureFile {
  return JSON.parse(readFileSync(join(FIXTURE_PAGES_DIR, `${name}.json`), 'utf8')) as FixtureFile;
}

/**
 * A fixture page as `host` would serve it over http: every absolute link to the fixture's own host
 * now points at `host`, so the engine's torrentFileUrl (same origin only) and the expectation agree.
 */
export function servePage(name: string, host: string, options: ServeOptions = {}): ServedPage {
  const file = readFixture(name);
  if (!file.expect) throw new Error(`${name} expects no reading; nothing to serve it for`);
  const original = new URL(file.url);
  const scheme = options.scheme ?? 'http';
  const moveHost = (text: string) =>
    text.replaceAll(`https://${original.host}`, `${scheme}://${host}`).replaceAll(`http://${original.host}`, `${scheme}://${host}`);
  let html = moveHost(readFileSync(join(FIXTURE_PAGES_DIR, `${file.html ?? name}.html`), 'utf8'));
  let expectText = moveHost(JSON.stringify(file.expect));
  if (options.swapHash) {
    const { from, to } = options.swapHash;
    html = html.replaceAll(from, to).replaceAll(from.toUpperCase(), to.toUpperCase());
    expectText = expectText.replaceAll(from, to);
  }
  if (options.edit) html = options.edit(html);
  const path = options.path ?? original.pathname + original.search;
  const ajaxFiles = options.ajax ?? file.ajax ?? {};
  return {
    fixture: name,
    host,
    scheme,
    path,
    url: `${scheme}://${host}${path}${options.path ? '' : original.hash}`,
    html,
    expect: JSON.parse(expectText) as FixtureReading,
    ajax: Object.fromEntries(Object.entries(ajaxFiles).map(([ajaxPath, answer]) => [ajaxPath, fixture(answer)])),
  };
}

/** Router routes for these pages, grouped by host (more routes per host may be merged in). */
export function routesFor(pages: readonly ServedPage[], extra: Record<string, StaticPages> = {}): Record<string, StaticPages> {
  const hosts: Record<string, StaticPages> = {};
  for (const page of pages) {
    if (page.scheme !== 'http') continue;
    hosts[page.host] = { ...hosts[page.host], [page.path]: page.html, ...page.ajax };
  }
  for (const [host, routes] of Object.entries(extra)) hosts[host] = { ...hosts[host], ...routes };
  return hosts;
}

/** A made-up but stable info-hash, different for every seed. */
export function madeUpHash(seed: string): string {
  return createHash('sha1').update(`reseed-lens e2e ${seed}`).digest('hex');
}

export interface TorrentGroup {
  title: string;
  members: { site: string; torrent_id: number; info_hash: string }[];
}

/**
 * One torrent group: the page's hash on its own site, and the same content on `elsewhere` (site
 * short name → torrent id) under made-up hashes.
 */
export function groupFor(hash: string, home: { site: string; torrentId: number }, elsewhere: Record<string, number>, title = `e2e ${hash}`): TorrentGroup {
  return {
    title,
    members: [
      { site: home.site, torrent_id: home.torrentId, info_hash: hash },
      ...Object.entries(elsewhere).map(([site, torrentId]) => ({
        site: site.replace(/#\d+$/, ''), // "hdsky#2": a second torrent on the same site
        torrent_id: torrentId,
        info_hash: madeUpHash(`${hash} ${site} ${torrentId}`),
      })),
    ],
  };
}

/** The reference data (sites, tokens, torrents) with these groups added. */
export function referenceDataWith(groups: readonly TorrentGroup[]): ReferenceData {
  const data = loadReferenceData();
  const known = new Set(data.torrents.flatMap((group) => group.members.map((member) => member.info_hash)));
  for (const group of groups) {
    for (const member of group.members) {
      if (known.has(member.info_hash)) throw new Error(`${member.info_hash} is already in the reference data`);
      if (!data.sites.some((site) => site.site === member.site)) throw new Error(`the reference site list has no ${member.site}`);
      known.add(member.info_hash);
    }
  }
  data.torrents.push(...groups);
  return data;
}

/**
 * Hosts on Chromium's built-in HSTS preload list: Chromium turns http:// into https:// for them
 * before the proxy sees anything, and no switch turns the list off (Firefox has a pref, set in the
 * harness). Their pages are served over https from inside the browser instead (serveOverHttps).
 */
export const CHROMIUM_HSTS_PRELOADED: ReadonlySet<string> = new Set(['monikadesign.uk']);

export function schemeFor(kind: BrowserKind, host: string): 'http' | 'https' {
  return kind === 'chromium' && CHROMIUM_HSTS_PRELOADED.has(host) ? 'https' : 'http';
}

/** Answers this tab's requests for an https page's host from the served pages (Playwright routing, Chromium only). */
export async function serveOverHttps(tab: HarnessPage, pages: readonly ServedPage[]): Promise<void> {
  if (tab.kind !== 'chromium') throw new Error('serveOverHttps is for Chromium; Firefox reaches these hosts over http');
  const raw = tab.raw as PlaywrightPage;
  for (const host of new Set(pages.filter((page) => page.scheme === 'https').map((page) => page.host))) {
    await raw.route(
      (url) => url.protocol === 'https:' && url.hostname === host,
      (route) => {
        const url = new URL(route.request().url());
        const page = pages.find((candidate) => candidate.host === host && candidate.path === url.pathname + url.search);
        return page
          ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: page.html })
          : route.fulfill({ status: 404, contentType: 'text/plain', body: 'not served' });
      },
    );
  }
}
