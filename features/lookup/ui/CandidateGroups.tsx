import type { ComponentChildren } from 'preact';
import type { CandidateView } from '../lookup.messages';
import { formatNumber, t } from '../../../utils/i18n';
import { CopyButton } from '../../../components/CopyButton';
import { currentSiteLast, groupBySite, splitByHeld, type SiteGroup } from './site-groups';

interface Props {
  candidates: CandidateView[];
  /** Open several links at once (the popup uses tabs.create; the panel window.open). */
  onOpenAll: (urls: string[]) => void;
  /** Show which page hash each candidate answers (list pages with several hashes). */
  showForHash?: boolean;
  /**
   * In the tracker's page (the panel), which the page's own scripts can measure:
   * - no split by the sites the user holds, in the order given (the answer's own): the fold, its
   *   count, the number of Tab stops and the panel's size would each say which sites those are;
   * - every word that depends on the answer (site names, torrent ids, "this site", "Open all",
   *   hashes) as CSS generated content, not text nodes: the page's window.find() searches text even
   *   inside a closed shadow root. Screen readers still read them;
   * - no Tab stop of its own: the panel makes the whole list one Tab stop (arrow keys move inside),
   *   so the number of Tab presses through it says nothing of how many candidates it holds.
   */
  inPage?: boolean;
  /**
   * Popup only: the info-hashes the user's torrent clients hold, each with the Name of the client
   * holding it: such a candidate is marked "In <Name>". Never given in the page (what the clients
   * hold is not the page's to measure).
   */
  inClient?: ReadonlyMap<string, string>;
  /** What follows each candidate (its "Cross-seed" button and outcome: the popup's and the panel's own). */
  extra?: (candidate: CandidateView) => ComponentChildren;
  /** Popup only: tags after its link (where it was found: FoundByTag). */
  tags?: (candidate: CandidateView) => ComponentChildren;
}

/** Text, or in the page the same words as generated content (see Props.inPage). */
const words = (text: string, inPage?: boolean) => (inPage ? { 'data-text': text } : { children: text });

/** One site on one line where it fits: its name, "this site", each torrent's link with a copy button, "Open all". */
function Group({ group, onOpenAll, showForHash, inPage, inClient, extra, tags }: { group: SiteGroup } & Omit<Props, 'candidates'>) {
  const urls = group.candidates.flatMap((candidate) => (candidate.detailsUrl ? [candidate.detailsUrl] : []));
  return (
    <li class={`site${group.isCurrentSite ? ' current' : ''}`} data-sid={group.sid}>
      <span class="site-head">
        {/* No text between them (the tag's margin spaces it): the page's text stays the same whatever is listed. */}
        <span class="site-name" {...words(group.siteName, inPage)} />
        {group.isCurrentSite && <span class="tag" {...words(t('thisSite'), inPage)} />}
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
                tabIndex={inPage ? -1 : undefined}
                {...words(`#${candidate.torrentId}`, inPage)}
              />
            ) : (
              <span class="candidate-nolink" title={t('noLinkForSite')} {...words(`#${candidate.torrentId}`, inPage)} />
            )}
            {showForHash && <code class="for-hash" {...words(candidate.forHash.slice(0, 8), inPage)} />}
            {tags?.(candidate)}
            {inClient?.has(candidate.infoHash) && <span class="tag in-client">{t('clientInNamed', inClient.get(candidate.infoHash)!)}</span>}
            {candidate.detailsUrl && (
              <CopyButton text={candidate.detailsUrl} describedAs={`${group.siteName} #${candidate.torrentId}`} tabIndex={inPage ? -1 : undefined} />
            )}
            {extra?.(candidate)}
          </li>
        ))}
      </ul>
      {urls.length > 1 && (
        <button
          type="button"
          class="link-button open-all"
          onClick={() => onOpenAll(urls)}
          aria-label={t('openAllOf', group.siteName)}
          tabIndex={inPage ? -1 : undefined}
          {...words(t('openAll'), inPage)}
        />
      )}
    </li>
  );
}

/**
 * Candidates grouped by site. In the popup the user's own sites are shown and the others folded
 * under a summary; in the page every site is listed alike (see Props.inPage).
 */
export function CandidateGroups({ candidates, onOpenAll, showForHash, inPage, inClient, extra, tags }: Props) {
  const groups = groupBySite(candidates);
  const { shown, folded } = inPage ? { shown: currentSiteLast(groups), folded: [] } : splitByHeld(groups);
  const list = (groups: SiteGroup[]) => (
    <ul class="sites">
      {groups.map((group) => (
        <Group key={group.sid} group={group} onOpenAll={onOpenAll} showForHash={showForHash} inPage={inPage} inClient={inClient} extra={extra} tags={tags} />
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
