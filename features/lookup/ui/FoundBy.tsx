/**
 * Where a candidate was found, in a few words (popup only: the page never gets candidates only a
 * site asked by pieces hash found, nor this tag): by the IYUU lookup service, by a site's
 * pieces-hash API, or by both. Shown once a second source named any, so a user of IYUU alone sees
 * nothing new.
 */
import type { CandidateView } from '../lookup.messages';
import { t } from '../../../utils/i18n';

/** Whether the list needs the tags: some candidate was found by pieces hash. */
export function anyFoundByPieces(candidates: readonly CandidateView[]): boolean {
  return candidates.some((candidate) => candidate.foundBy === 'pieces' || candidate.foundBy === 'both');
}

export function FoundByTag({ by }: { by: NonNullable<CandidateView['foundBy']> }) {
  const [label, title] =
    by === 'pieces' ? [t('foundByPieces'), t('foundByPiecesTitle')] : by === 'both' ? [t('foundByBoth'), t('foundByBothTitle')] : [t('foundByIyuu'), t('foundByIyuuTitle')];
  return (
    <span class="tag found-by" data-found-by={by} title={title}>
      {label}
    </span>
  );
}
