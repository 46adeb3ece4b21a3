/**
 * The reference data stays consistent, also after sites.json is replaced by a researched list:
 * every short name the torrents, accounts and tokens use must exist, hashes must be unique.
 */
import { describe, expect, it } from 'vitest';
import { indexReferenceData, loadReferenceData } from './data';

const data = loadReferenceData();
const index = indexReferenceData(data);

describe('reference data', () => {
  it('knows every site the torrents, accounts and tokens name', () => {
    expect(index.unknownSites).toEqual([]);
  });

  it('has unique info-hashes and unique (site, torrent id) pairs', () => {
    expect(index.duplicateHashes).toEqual([]);
    const pairs = data.torrents.flatMap((torrent) => torrent.members.map((member) => `${member.site}:${member.torrent_id}`));
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it('has unique site ids and short names', () => {
    expect(new Set(data.sites.map((site) => site.id)).size).toBe(data.sites.length);
    expect(new Set(data.sites.map((site) => site.site)).size).toBe(data.sites.length);
  });

  it('has realistic groups: ~40, several on 5+ sites, one with two entries on one site, some alone', () => {
    expect(data.torrents.length).toBeGreaterThanOrEqual(35);
    expect(index.groups.filter((group) => group.length >= 5).length).toBeGreaterThanOrEqual(5);
    expect(index.groups.some((group) => new Set(group.map((member) => member.site)).size < group.length)).toBe(true);
    expect(index.groups.some((group) => group.length === 1)).toBe(true);
  });

  it('recommends only listed sites, and binds tokens and accounts to recommended ones', () => {
    const byName = new Map(data.sites.map((site) => [site.site, site.id]));
    for (const entry of data.recommend) expect(byName.get(entry.site), entry.site).toBe(entry.id);
    const recommended = new Set(data.recommend.map((entry) => entry.site));
    for (const account of data.accounts) expect(recommended.has(account.site), account.site).toBe(true);
    for (const token of data.tokens) if (token.bound) expect(data.accounts.some((a) => a.site === token.bound!.site && a.user_id === token.bound!.user_id)).toBe(true);
  });

  it('has the demo credentials the docs and the CLI promise', () => {
    expect(data.tokens.map((token) => token.token)).toEqual(expect.arrayContaining(['demo-token', 'demo-unbound-token', 'demo-expired-token']));
    expect(data.apps).toContainEqual({ appid: 'demo-app', secret: 'demo-secret' });
  });
});
