import { describe, expect, it } from 'vitest';
import { allLinks, groupBySite, splitByHeld } from '../../../../features/lookup/ui/site-groups';
import type { CandidateView } from '../../../../features/lookup/lookup.messages';

const candidate = (sid: number, torrentId: number, extra: Partial<CandidateView> = {}): CandidateView => ({
  sid,
  torrentId,
  infoHash: 'a'.repeat(39) + String(sid % 10),
  forHash: 'f'.repeat(40),
  siteName: `Site ${sid}`,
  detailsUrl: `https://site${sid}.example/details.php?id=${torrentId}`,
  isCurrentSite: false,
  ...extra,
});

describe('groupBySite', () => {
  it('keeps one group per site in first-seen order, with all its torrents', () => {
    const groups = groupBySite([candidate(2, 10), candidate(1, 5), candidate(2, 11)]);
    expect(groups.map((group) => group.sid)).toEqual([2, 1]);
    expect(groups[0]!.candidates.map((c) => c.torrentId)).toEqual([10, 11]);
  });
});

describe('splitByHeld', () => {
  it('shows every site until the user picked theirs', () => {
    const { shown, folded } = splitByHeld(groupBySite([candidate(1, 1), candidate(2, 2)]));
    expect(shown).toHaveLength(2);
    expect(folded).toHaveLength(0);
  });

  it('folds the sites the user is not on, and puts the current site last', () => {
    const { shown, folded } = splitByHeld(
      groupBySite([
        candidate(3, 1, { isCurrentSite: true, held: true }),
        candidate(1, 2, { held: true }),
        candidate(2, 3, { held: false }),
      ]),
    );
    expect(shown.map((group) => group.sid)).toEqual([1, 3]);
    expect(folded.map((group) => group.sid)).toEqual([2]);
  });
});

describe('allLinks', () => {
  it('lists the links of other sites only, one per line', () => {
    const text = allLinks([candidate(1, 7), candidate(2, 8, { isCurrentSite: true }), candidate(3, 9, { detailsUrl: undefined })]);
    expect(text).toBe('https://site1.example/details.php?id=7');
  });
});
