import type { CandidateView } from '../utils/messages';
import { formatNumber, t } from '../utils/i18n';
import { CopyButton } from './CopyButton';
import { groupBySite, splitByHeld, type SiteGroup } from './groups';

interface Props {
  candidates: CandidateView[];
  /** Open several links at once (the popup uses tabs.create; the panel window.open). */
  onOpenAll?: (urls: string[]) => void;
  /** Show which page hash each candidate answers (list pages with several hashes). */
  showForHash?: boolean;
}

function Group({ group, onOpenAll, showForHash }: { group: SiteGroup } & Omit<Props, 'candidates'>) {
  const urls = group.candidates.flatMap((candidate) => (candidate.detailsUrl ? [candidate.detailsUrl] : []));
  return (
    <li class={`site${group.isCurrentSite ? ' current' : ''}`} data-sid={group.sid}>
      <div class="site-head">
        <span class="site-name">{group.siteName}</span>
        {group.isCurrentSite && <span class="tag">{t('thisSite')}</span>}
        <span class="count" aria-label={t('candidatesCount', formatNumber(group.candidates.length))}>
          {formatNumber(group.candidates.length)}
        </span>
        {onOpenAll && urls.length > 1 && (
          <button type="button" class="link-button" onClick={() => onOpenAll(urls)} aria-label={t('openAllOf', group.siteName)}>
            {t('openAll')}
          </button>
        )}
      </div>
      <ul class="torrents">
        {group.candidates.map((candidate) => (
          <li key={`${candidate.torrentId}:${candidate.forHash}`} class="torrent">
            {candidate.detailsUrl ? (
              <a
                class="candidate-link"
                href={candidate.detailsUrl}
                target="_blank"
                rel="noopener noreferrer"
                title={candidate.detailsUrl}
                aria-label={t('candidateLinkLabel', group.siteName, String(candidate.torrentId))}
              >
                #{candidate.torrentId}
              </a>
            ) : (
              <span class="candidate-nolink" title={t('noLinkForSite')}>
                #{candidate.torrentId}
              </span>
            )}
            {showForHash && <code class="for-hash">{candidate.forHash.slice(0, 8)}</code>}
            {candidate.detailsUrl && <CopyButton text={candidate.detailsUrl} describedAs={`${group.siteName} #${candidate.torrentId}`} />}
          </li>
        ))}
      </ul>
    </li>
  );
}

/** Candidates grouped by site: the user's own sites shown, the others folded under a summary. */
export function CandidateGroups({ candidates, onOpenAll, showForHash }: Props) {
  const { shown, folded } = splitByHeld(groupBySite(candidates));
  return (
    <div class="candidates">
      {shown.length > 0 && (
        <ul class="sites" aria-label={t('candidatesHeading')}>
          {shown.map((group) => (
            <Group key={group.sid} group={group} onOpenAll={onOpenAll} showForHash={showForHash} />
          ))}
        </ul>
      )}
      {folded.length > 0 && (
        <details class="not-on">
          <summary>
            {t('sitesNotOn')} ({formatNumber(folded.length)})
          </summary>
          <ul class="sites">
            {folded.map((group) => (
              <Group key={group.sid} group={group} onOpenAll={onOpenAll} showForHash={showForHash} />
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
