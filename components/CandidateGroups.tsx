import type { CandidateView } from '../utils/messages';
import { formatNumber, t } from '../utils/i18n';
import { CopyButton } from './CopyButton';
import { groupBySite, splitByHeld, type SiteGroup } from './groups';

interface Props {
  candidates: CandidateView[];
  /** Open several links at once (the popup uses tabs.create; the panel window.open). */
  onOpenAll: (urls: string[]) => void;
  /** Show which page hash each candidate answers (list pages with several hashes). */
  showForHash?: boolean;
  /**
   * Site names and torrent ids as CSS generated content, not text nodes (the in-page panel): the
   * page's window.find() searches text even inside a closed shadow root, and would learn which
   * sites are listed unfolded, that is, which sites the user is on. Screen readers still read them.
   */
  quiet?: boolean;
}

/** Text, or in quiet mode the same words as generated content (see Props.quiet). */
const words = (text: string, quiet?: boolean) => (quiet ? { 'data-text': text } : { children: text });

/** One site on one line where it fits: its name, "this site", each torrent's link with a copy button, "Open all". */
function Group({ group, onOpenAll, showForHash, quiet }: { group: SiteGroup } & Omit<Props, 'candidates'>) {
  const urls = group.candidates.flatMap((candidate) => (candidate.detailsUrl ? [candidate.detailsUrl] : []));
  return (
    <li class={`site${group.isCurrentSite ? ' current' : ''}`} data-sid={group.sid}>
      <span class="site-head">
        <span class="site-name" {...words(group.siteName, quiet)} /> {group.isCurrentSite && <span class="tag">{t('thisSite')}</span>}
      </span>
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
                {...words(`#${candidate.torrentId}`, quiet)}
              />
            ) : (
              <span class="candidate-nolink" title={t('noLinkForSite')} {...words(`#${candidate.torrentId}`, quiet)} />
            )}
            {showForHash && <code class="for-hash">{candidate.forHash.slice(0, 8)}</code>}
            {candidate.detailsUrl && <CopyButton text={candidate.detailsUrl} describedAs={`${group.siteName} #${candidate.torrentId}`} />}
          </li>
        ))}
      </ul>
      {urls.length > 1 && (
        <button type="button" class="link-button open-all" onClick={() => onOpenAll(urls)} aria-label={t('openAllOf', group.siteName)}>
          {t('openAll')}
        </button>
      )}
    </li>
  );
}

/** Candidates grouped by site: the user's own sites shown, the others folded under a summary. */
export function CandidateGroups({ candidates, onOpenAll, showForHash, quiet }: Props) {
  const { shown, folded } = splitByHeld(groupBySite(candidates));
  const list = (groups: SiteGroup[]) => (
    <ul class="sites">
      {groups.map((group) => (
        <Group key={group.sid} group={group} onOpenAll={onOpenAll} showForHash={showForHash} quiet={quiet} />
      ))}
    </ul>
  );
  return (
    <div class="candidates">
      {shown.length > 0 && list(shown)}
      {folded.length > 0 && (
        <details class="not-on">
          <summary>
            {t('sitesNotOn')} ({formatNumber(folded.length)})
          </summary>
          {list(folded)}
        </details>
      )}
    </div>
  );
}
