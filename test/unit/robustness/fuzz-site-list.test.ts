/**
 * Random service site lists, served by the reference service and read by the client, then turned
 * into candidates and links the way the background does (with random user overrides on top): every
 * link is http(s)://<catalogued, listed or overriding host>/<a template with the numeric id>, and a
 * recommended site's home link is that host's root, whatever the list held.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { buildCandidateViews, recommendedViews } from '../../../features/lookup/candidates';
import type { CachedAnswer } from '../../../utils/lookup/answer-cache';
import { getSites } from '../../../utils/iyuu/operations';
import { siteOverrideSchema, type SiteOverride } from '../../../utils/settings';
import { catalog } from '../../../utils/sites';
import { DEMO_TOKEN, startReferenceService, type ReferenceService } from '../../service/server';
import { expectSafeLink, linkRules, reportBadInputs, tried } from './support';

reportBadInputs('site list fuzz', 900);

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService();
  (fakeBrowser.i18n as { getUILanguage: () => string }).getUILanguage = () => 'zh-CN';
});
afterAll(() => service.close());

const catalogHost = fc.constantFrom(...catalog.flatMap((entry) => [...entry.hosts, ...(entry.oldHosts ?? []), ...(entry.apiHosts ?? [])]));
const catalogSid = fc.constantFrom(...catalog.flatMap((entry) => (entry.sid === undefined ? [] : [entry.sid])));
const junkHost = fc.constantFrom(
  'evil.example/x', 'https://evil.example', 'a b.com', 'user@evil.example', 'evil.example:8080', 'EVIL.Example', '127.0.0.1', 'localhost', '[::1]',
  '.evil.com', 'evil.com.', 'evil.com#', 'evil.com\\x', 'evil.com%2F', '\u0000evil.com', 'ｅｖｉｌ.com', '', ' ', 'hdsky.me.evil.com', 'javascript:alert(1)',
);
const template = fc.oneof(
  fc.constantFrom('details.php?id={}', 't/{id}/', 'detail/{}', '', 'torrents.php?torrentid={}', 'plugin_details.php?id={}&hit=1'),
  fc.constantFrom(
    'javascript:alert({})', '//evil.example/{}', 'https://evil.example/{}', '\\\\evil.example\\{}', '/\\evil.example/{}', 'x?id={}&passkey={passkey}',
    '%2F%2Fevil.example/{}', 'details.php?id={}"><img src=x>', 'a b{}', '\t{}', 'details.php', '{}{}{}', '{id}/../../{}', '@evil.example/{}', ':443/{}',
  ),
  fc.array(fc.oneof(fc.constantFrom('{}', '{id}', '/', '//', '?', '#', '@', ':', '%', '..', '\\', '<', '"'), fc.string({ maxLength: 5 })), { maxLength: 6 }).map((parts) => parts.join('')),
);
const hostile = fc.oneof(fc.anything({ maxDepth: 1 }), fc.constantFrom('', '<img src=x onerror=alert(1)>', -1, 1.5, null, '7', 'x7'));
const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 5, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: hostile });
const siteEntry = fc.record(
  {
    id: mostly(fc.oneof(catalogSid, fc.nat({ max: 300 }))),
    site: mostly(fc.string({ minLength: 1, maxLength: 10 })),
    nickname: mostly(fc.oneof(fc.string({ maxLength: 12 }), fc.constant('<img src=x onerror=alert(1)>'))),
    base_url: fc.oneof({ weight: 3, arbitrary: catalogHost }, { weight: 2, arbitrary: fc.domain() }, { weight: 2, arbitrary: junkHost }),
    details_page: template,
    is_https: mostly(fc.constantFrom(0, 1, 2, '0', '1', '2')),
    cookie_required: mostly(fc.constantFrom(0, 1)),
  },
  { requiredKeys: ['id', 'site', 'base_url'] },
);
const override = fc.record({ host: fc.oneof(fc.domain(), junkHost), scheme: fc.constantFrom('http', 'https', 'ftp', 'javascript') }, { requiredKeys: [] });

describe('links from random service site lists', () => {
  it('stay on catalogued, listed or overriding hosts, built from a template and the numeric id', async () => {
    let links = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(siteEntry, { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat({ max: 20 }), fc.oneof(fc.nat({ max: 10_000_000 }), fc.maxSafeNat())), { minLength: 1, maxLength: 12 }),
        fc.dictionary(fc.oneof(catalogSid, fc.nat({ max: 300 })).map(String), override, { maxKeys: 3 }),
        async (entries, picks, rawOverrides) => {
          tried(entries.length + Object.keys(rawOverrides).length);
          service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: { sites: entries } }) }, 1, '/reseed/sites/index');
          const { sites } = await getSites({ baseUrl: service.url, token: DEMO_TOKEN, version: '0.1.0' });
          // Overrides come from the settings, which keep only valid ones.
          const overrides: Record<string, SiteOverride> = {};
          for (const [sid, value] of Object.entries(rawOverrides)) {
            const parsed = siteOverrideSchema.safeParse(value);
            if (parsed.success) overrides[sid] = parsed.data;
          }
          // Candidates on the listed sites, on catalogued sites and on unknown ones.
          const sids = [...sites.map((site) => site.id), ...catalog.slice(0, 5).flatMap((entry) => (entry.sid === undefined ? [] : [entry.sid])), 9999];
          const hash = 'ab'.repeat(20);
          const answer: CachedAnswer = { fetchedAt: 0, candidates: picks.map(([pick, torrentId]) => ({ sid: sids[pick % sids.length]!, torrent_id: torrentId, info_hash: 'cd'.repeat(20) })) };
          const views = buildCandidateViews([{ hash, source: 'info-row' }], new Map([[hash, answer]]), { sites, host: 'hdsky.me', heldSites: null, overrides });

          const rules = linkRules(sites);
          for (const value of Object.values(overrides)) if (value.host) rules.hosts.add(value.host);
          for (const view of views) {
            expect(typeof view.siteName).toBe('string');
            if (!view.detailsUrl) continue;
            links++;
            expectSafeLink(view.detailsUrl, view.torrentId, rules);
          }
          for (const recommended of recommendedViews(sites.map((site) => ({ id: site.id, site: site.site, nickname: site.nickname })), sites)) {
            if (!recommended.homeUrl) continue;
            const home = new URL(recommended.homeUrl);
            expect(recommended.homeUrl).toBe(`${home.protocol}//${home.hostname}/`);
            expect(rules.hosts.has(home.hostname), recommended.homeUrl).toBe(true);
          }
        },
      ),
      { numRuns: 160 },
    );
    expect(links).toBeGreaterThan(150); // not vacuous: most lists do give links
  }, 30_000);
});
