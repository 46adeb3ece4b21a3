/**
 * The popup's candidates with the second source (issue 18): the service's and the places sites
 * asked by pieces hash named, merged one place once; and what a tracker page's panel gets of them
 * (never a place only the pieces hash found: that tells what the client holds).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { buildCandidateViews, mergePiecesCandidates, type PiecesPlace, type SiteContext } from '../../../../features/lookup/candidates';
import type { CandidateView, TabView } from '../../../../features/lookup/lookup.messages';
import { pageView } from '../../../../features/lookup/panel-view';
import type { CachedAnswer } from '../../../../utils/lookup/answer-cache';
import { siteForName } from '../../../../utils/sites';
import { installI18n } from '../../support/i18n';

const PAGE = 'a'.repeat(40);
const HDSKY = siteForName('hdsky')!.sid!;
const PTER = siteForName('pter')!.sid!;
const OURBITS = siteForName('ourbits')!.sid!;
const PIECES = 'b'.repeat(40);
const hex = (n: number) => n.toString(16).padStart(40, '0');

const context = (extra: Partial<SiteContext> = {}): SiteContext => ({ host: 'hdsky.me', heldSites: [PTER, OURBITS], overrides: {}, ...extra });

/** The service's answer for the page's hash: PTer 11 and OurBits 21. */
function serviceViews(ctx = context()): CandidateView[] {
  const answer = { candidates: [{ sid: PTER, torrent_id: 11, info_hash: hex(11) }, { sid: OURBITS, torrent_id: 21, info_hash: hex(21) }] } as unknown as CachedAnswer;
  return buildCandidateViews([{ hash: PAGE, source: 'info-row' }], new Map([[PAGE, answer]]), ctx);
}

const place = (sid: number, torrentId: number, extra: Partial<PiecesPlace> = {}): PiecesPlace => ({ forHash: PAGE, sid, torrentId, piecesHash: PIECES, ...extra });

beforeEach(() => {
  fakeBrowser.reset();
  installI18n('en');
});

describe('mergePiecesCandidates', () => {
  it('no places: the service candidates, found by the service', () => {
    const merged = mergePiecesCandidates(serviceViews(), [], context());
    expect(merged.map((view) => [view.sid, view.torrentId, view.foundBy])).toEqual([
      [OURBITS, 21, 'iyuu'],
      [PTER, 11, 'iyuu'],
    ]);
  });

  it("a place both name is one candidate, found by both, with the service's info-hash and no pieces hash to check", () => {
    const merged = mergePiecesCandidates(serviceViews(), [place(PTER, 11)], context());
    expect(merged).toHaveLength(2);
    const both = merged.find((view) => view.sid === PTER)!;
    expect(both).toMatchObject({ torrentId: 11, infoHash: hex(11), foundBy: 'both' });
    expect(both.piecesHash).toBeUndefined();
  });

  it('a place only the pieces hash found: no info-hash, its pieces hash, a details link from the catalog, held and current site as for any', () => {
    const merged = mergePiecesCandidates(serviceViews(), [place(OURBITS, 77), place(HDSKY, 5)], context());
    expect(merged).toHaveLength(4);
    const found = merged.find((view) => view.torrentId === 77)!;
    expect(found).toMatchObject({ sid: OURBITS, infoHash: '', piecesHash: PIECES, foundBy: 'pieces', forHash: PAGE, held: true, isCurrentSite: false });
    expect(found.detailsUrl).toMatch(/^https:\/\/ourbits\.club\/details\.php\?id=77$/);
    // On this page's own site: the current site, not held.
    expect(merged.find((view) => view.torrentId === 5)).toMatchObject({ sid: HDSKY, isCurrentSite: true, held: false, foundBy: 'pieces' });
    // Held sites first, then by name; within a site by torrent id.
    expect(merged.map((view) => `${view.sid}:${view.torrentId}`)).toEqual([`${OURBITS}:21`, `${OURBITS}:77`, `${PTER}:11`, `${HDSKY}:5`]);
  });

  it("a place the client holds from that very site carries the client's torrent as its info-hash and no pieces hash", () => {
    const held = hex(999);
    const merged = mergePiecesCandidates([], [place(HDSKY, 5, { heldHash: held })], context());
    expect(merged).toEqual([expect.objectContaining({ sid: HDSKY, torrentId: 5, infoHash: held, foundBy: 'pieces' })]);
    expect(merged[0]!.piecesHash).toBeUndefined();
  });

  it('the same place named twice by pieces stays one candidate; the same place for another page hash is its own', () => {
    const other = 'c'.repeat(40);
    const merged = mergePiecesCandidates([], [place(OURBITS, 77), place(OURBITS, 77), place(OURBITS, 77, { forHash: other })], context());
    expect(merged.map((view) => [view.torrentId, view.forHash, view.foundBy])).toEqual([
      [77, PAGE, 'pieces'],
      [77, other, 'pieces'],
    ]);
  });

  it('does not change the views it was given', () => {
    const views = serviceViews();
    const before = structuredClone(views);
    mergePiecesCandidates(views, [place(PTER, 11), place(OURBITS, 77)], context());
    expect(views).toEqual(before);
  });

  it('held undefined until the user picks their sites', () => {
    const merged = mergePiecesCandidates([], [place(OURBITS, 77)], context({ heldSites: null }));
    expect(merged[0]!.held).toBeUndefined();
  });
});

describe('what the page sees', () => {
  function tabView(candidates: CandidateView[], extra: Partial<TabView> = {}): TabView {
    return { tabId: 1, url: 'https://hdsky.me/details.php?id=1', host: 'hdsky.me', siteName: 'HDSky', status: 'done', hashes: [{ hash: PAGE, source: 'info-row' }], candidates, ...extra };
  }

  it('never a place only the pieces hash found; a place both found, as the service gave it', () => {
    const merged = mergePiecesCandidates(serviceViews(), [place(PTER, 11), place(OURBITS, 77), place(HDSKY, 5, { heldHash: hex(999) })], context());
    const view = pageView(tabView(merged));
    expect(view.candidates.map((entry) => [entry.sid, entry.torrentId, entry.infoHash])).toEqual([
      [OURBITS, 21, hex(21)],
      [PTER, 11, hex(11)],
    ]);
    const text = JSON.stringify(view);
    for (const secret of [PIECES, hex(999), '"torrentId":77', 'foundBy', 'piecesHash', 'both']) expect(text).not.toContain(secret);
    // The same page view as with no pieces answers at all.
    expect(view).toEqual(pageView(tabView(mergePiecesCandidates(serviceViews(), [], context()))));
  });

  it("the page's status is the service's (serviceStatus) when the popup's differs: no token, pieces candidates only", () => {
    const merged = mergePiecesCandidates([], [place(OURBITS, 77)], context());
    const view = pageView(tabView(merged, { status: 'done', serviceStatus: 'no-credentials' }));
    expect(view.status).toBe('no-credentials');
    expect(view.candidates).toEqual([]);
    expect(pageView(tabView(merged, { status: 'looking-up' })).status).toBe('looking-up');
  });
});
