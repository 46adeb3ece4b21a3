/**
 * A candidate found by a site's pieces-hash API (issue 18): no info-hash, only the pieces hash its
 * .torrent must carry. Against a real qbittorrent-nox and the test trackers behind the e2e router
 * (as live-cross-seed.test.ts): the right pieces are checked, the files compared and the torrent
 * added; another torrent is refused naming its hash; one the client holds is not added again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOriginRule } from '../../../utils/clients/csrf';
import { createClient } from '../../../utils/clients/index';
import type { TorrentClient } from '../../../utils/clients/client-types';
import { crossSeed, crossSeedAll, SitePace, type CrossSeedAllEvent, type CrossSeedCandidate, type CrossSeedEnvironment } from '../../../utils/cross-seed-engine';
import { checkCandidateFile } from '../../../utils/cross-seed-engine/verify';
import { piecesHashFromTorrent } from '../../../utils/torrent/pieces-hash';
import { startQbittorrent, type RunningDaemon } from '../../clients/daemons';
import { makeTorrent, TRACKERS } from '../../clients/torrent-content';
import { nodeClientFetch } from '../../clients/node-fetch';
import { CANDIDATE_SITE, PAGE_SITE, startCrossSeedWorld, type CrossSeedWorld } from '../../e2e/support/cross-seed-world';

const LIVE = { timeout: 120_000 };
const EXTENSION_URL = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';

async function piecesOf(bytes: Uint8Array): Promise<string> {
  const read = await piecesHashFromTorrent(bytes);
  if (!('piecesHash' in read)) throw new Error(`no pieces hash: ${read.error}`);
  return read.piecesHash;
}

describe('checkCandidateFile by pieces hash', () => {
  let cs: CrossSeedWorld;
  beforeAll(async () => {
    cs = await startCrossSeedWorld({ pairs: 1 });
  }, 60_000);
  afterAll(() => cs?.close());

  it('the right pieces: its files and its info-hash learnt; other pieces: other-torrent with the file\'s own hash', async () => {
    const pair = cs.pairs[0]!;
    const pieces = await piecesOf(pair.candidate.bytes);
    // Source and candidate: the same data cut the same way, other info-hashes.
    expect(await piecesOf(pair.source.bytes)).toBe(pieces);
    expect(pair.source.hash).not.toBe(pair.candidate.hash);
    const right = await checkCandidateFile(pair.candidate.bytes, { piecesHash: pieces.toUpperCase() });
    expect(right).toMatchObject({ ok: true, hash: pair.candidate.hash });
    expect(right.ok && right.files.map((file) => file.path).sort()).toEqual(pair.files.map((file) => `${pair.name}/${file.path}`).sort());
    expect(await checkCandidateFile(cs.differentFiles.torrent.bytes, { piecesHash: pieces })).toEqual({ ok: false, kind: 'other-torrent', hash: cs.differentFiles.torrent.hash });
    expect(await checkCandidateFile(new TextEncoder().encode('<html>login</html>'), { piecesHash: pieces })).toMatchObject({ ok: false, kind: 'not-a-torrent' });
    // An empty pieces hash (what crossSeed passes for a malformed one) matches nothing.
    expect(await checkCandidateFile(pair.candidate.bytes, { piecesHash: '' })).toEqual({ ok: false, kind: 'other-torrent', hash: pair.candidate.hash });
  });
});

describe('crossSeed of a candidate known by its pieces hash (live qBittorrent, test trackers)', () => {
  let daemon: RunningDaemon;
  let cs: CrossSeedWorld;
  let client: TorrentClient;
  const adds: string[] = [];
  let env: (extra?: Partial<CrossSeedEnvironment>) => CrossSeedEnvironment;

  beforeAll(async () => {
    daemon = await startQbittorrent();
    cs = await startCrossSeedWorld({ pairs: 3 });
    const origin = clientOriginRule(daemon.url, EXTENSION_URL).action.requestHeaders.find((header) => header.header === 'Origin')!.value;
    const inner = nodeClientFetch({ origin });
    // Every add the engine asks of the client, by API path.
    const watched = ((input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/torrents/add')) adds.push(url);
      return inner(input, init);
    }) as typeof fetch;
    client = createClient(daemon.config, { fetch: watched });
    const siteFetch = cs.siteFetch();
    await cs.logIn(siteFetch, cs.candidate);
    await cs.logIn(siteFetch, cs.page);
    for (const index of [0, 1, 2]) await cs.seed(client, daemon.dataDir, index);
    env = (extra = {}) => ({ target: { client, skipCheckWhenFilesMatch: false, url: daemon.url }, sites: cs.siteSettings(), fetch: siteFetch, pace: new SitePace(50), ...extra });
  }, 180_000);

  afterAll(async () => {
    await cs?.close();
    await daemon?.stop();
  }, 60_000);

  const byPieces = async (pairIndex: number, torrentId?: number, sid: number = CANDIDATE_SITE.sid): Promise<CrossSeedCandidate> => {
    const pair = cs.pairs[pairIndex]!;
    return { sid, torrentId: torrentId ?? pair.candidateId, infoHash: '', piecesHash: await piecesOf(pair.candidate.bytes) };
  };

  it('the right pieces: downloaded, files compared, added under the info-hash learnt from the file; again: already in the client, no add', LIVE, async () => {
    const pair = cs.pairs[0]!;
    const candidate = await byPieces(0);
    const downloads = cs.candidate.downloads.length;
    const result = await crossSeed(pair.source.hash, candidate, env());
    expect(result).toMatchObject({ kind: 'added', hash: pair.candidate.hash, checked: true, progress: 1 });
    expect((await client.lookup([pair.candidate.hash])).get(pair.candidate.hash)).toBeDefined();
    expect(cs.candidate.downloads.length - downloads).toBe(1);

    // Known by its pieces only, the client's holding shows once the file is read: one download, no add.
    const addsBefore = adds.length;
    expect(await crossSeed(pair.source.hash, candidate, env())).toEqual({ kind: 'already-in-client', hash: pair.candidate.hash, savePath: expect.any(String) });
    expect(adds.length).toBe(addsBefore);
    expect(cs.candidate.downloads.length - downloads).toBe(2);
  });

  it("the page's own torrent, found by pieces on its own site: already in the client, nothing added", LIVE, async () => {
    const pair = cs.pairs[1]!;
    const addsBefore = adds.length;
    const own: CrossSeedCandidate = { sid: PAGE_SITE.sid, torrentId: pair.sourceId, infoHash: '', piecesHash: await piecesOf(pair.source.bytes) };
    expect(await crossSeed(pair.source.hash, own, env())).toMatchObject({ kind: 'already-in-client', hash: pair.source.hash });
    expect(adds.length).toBe(addsBefore);
  });

  it('other pieces (the site gave another torrent): other-torrent with the downloaded hash, nothing added', LIVE, async () => {
    const pair = cs.pairs[1]!;
    const addsBefore = adds.length;
    // The place of the other release, expected to carry pair 1's pieces.
    const wrong = await byPieces(1, cs.differentFiles.id);
    expect(await crossSeed(pair.source.hash, wrong, env())).toEqual({ kind: 'other-torrent', hash: cs.differentFiles.torrent.hash });
    expect(adds.length).toBe(addsBefore);
    expect((await client.lookup([cs.differentFiles.torrent.hash])).size).toBe(0);
  });

  it('the same pieces under another folder name: with "Cross-seed copies whose names differ" off, files-differ and why, nothing added', LIVE, async () => {
    const pair = cs.pairs[1]!;
    // The same bytes cut the same way, in a folder renamed: the pieces hash cannot tell, the file paths can.
    const renamed = makeTorrent({ savePath: '', name: `${pair.name} (renamed)`, files: pair.files, single: false, seed: pair.seed }, TRACKERS.beta);
    expect(await piecesOf(renamed.bytes)).toBe(await piecesOf(pair.candidate.bytes));
    cs.candidate.list(2950, renamed, renamed.name);
    const addsBefore = adds.length;
    const off = env();
    const result = await crossSeed(pair.source.hash, await byPieces(1, 2950), { ...off, target: { ...off.target!, renameCopies: false } });
    expect(result).toMatchObject({ kind: 'files-differ', copy: { kind: 'setting-off' } });
    expect(result.kind === 'files-differ' && result.differences.map((difference) => difference.kind)).toContain('missing');
    expect(adds.length).toBe(addsBefore);
    expect((await client.lookup([renamed.hash])).size).toBe(0);
  });

  it('the same pieces under another folder name: a renamed copy, added stopped, renamed to the folder on disk, checked to 100 % and started; the source untouched', LIVE, async () => {
    const pair = cs.pairs[1]!;
    const renamed = makeTorrent({ savePath: '', name: `${pair.name} (renamed)`, files: pair.files, single: false, seed: pair.seed }, TRACKERS.beta);
    cs.candidate.list(2951, renamed, renamed.name);
    const sourceFiles = await client.files(pair.source.hash);
    const result = await crossSeed(pair.source.hash, await byPieces(1, 2951), env());
    expect(result).toMatchObject({ kind: 'added', hash: renamed.hash, checked: true, progress: 1, savePath: daemon.dataDir });
    expect(result.kind === 'added' && result.renamed).toEqual(pair.files.map((file) => ({ from: `${pair.name} (renamed)/${file.path}`, to: `${pair.name}/${file.path}`, size: file.size })));
    expect(await client.files(renamed.hash)).toEqual(sourceFiles);
    expect(await client.files(pair.source.hash)).toEqual(sourceFiles);
    expect((await client.lookup([pair.source.hash])).get(pair.source.hash)).toMatchObject({ progress: 1, state: 'seeding' });
  });

  it('no info-hash and no (usable) pieces hash: bad-request, nothing downloaded', LIVE, async () => {
    const pair = cs.pairs[1]!;
    const downloads = cs.candidate.downloads.length;
    const place = { sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId };
    const pieces = await piecesOf(pair.candidate.bytes);
    for (const candidate of [{ ...place, infoHash: '' }, { ...place, infoHash: '', piecesHash: 'abc' }, { ...place, infoHash: 'not a hash', piecesHash: pieces }] as CrossSeedCandidate[]) {
      expect(await crossSeed(pair.source.hash, candidate, env()), JSON.stringify(candidate)).toMatchObject({ kind: 'bad-request' });
    }
    expect(cs.candidate.downloads.length).toBe(downloads);
  });

  it('Cross-seed all with both kinds: one place once (the info-hash one kept), pieces candidates tried, an info-hash one the client holds counted as held', LIVE, async () => {
    const page = cs.pairs[2]!;
    const samePlace = await byPieces(2);
    const candidates: CrossSeedCandidate[] = [
      page.ref, // by info-hash
      samePlace, // the same place by pieces: not a second try
      { ...cs.differentFiles.ref, infoHash: '', piecesHash: samePlace.piecesHash }, // by pieces: the site gives another torrent
      cs.pairs[0]!.ref, // by info-hash, held since the first test
    ];
    const downloads = cs.candidate.downloads.length;
    const events: CrossSeedAllEvent[] = [];
    for await (const event of crossSeedAll(page.source.hash, candidates, [CANDIDATE_SITE.sid], env())) events.push(event);
    expect(events[0]).toEqual({ type: 'plan', total: 2, sitesChosen: true, notYourSites: 0, alreadyInClient: 1, overLimit: 0 });
    const results = events.flatMap((event) => (event.type === 'result' ? [[event.candidate.torrentId, event.candidate.infoHash, event.result.kind]] : []));
    expect(results).toEqual([
      [page.candidateId, page.candidate.hash, 'added'],
      [cs.differentFiles.id, '', 'other-torrent'],
    ]);
    expect(cs.candidate.downloads.length - downloads).toBe(2);
  });

  it('Cross-seed all: a pieces candidate first at a place keeps that place once', LIVE, async () => {
    const page = cs.pairs[2]!;
    const first = await byPieces(2);
    const events: CrossSeedAllEvent[] = [];
    for await (const event of crossSeedAll(page.source.hash, [first, page.ref, first], [CANDIDATE_SITE.sid], env())) events.push(event);
    expect(events[0]).toMatchObject({ type: 'plan', total: 1 });
    // Added by the test before: the .torrent says so.
    expect(events.filter((event) => event.type === 'result').map((event) => event.type === 'result' && event.result.kind)).toEqual(['already-in-client']);
  });
});
