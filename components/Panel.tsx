import { useState } from 'preact/hooks';
import type { TabView } from '../utils/messages';
import { formatAge, formatNumber, t } from '../utils/i18n';
import { CandidateGroups } from './CandidateGroups';
import { FailureNotice } from './FailureNotice';
import { torrentProblemText } from './torrentProblem';

export interface PanelProps {
  view: TabView;
  /** Start expanded (details pages) or as a one-line summary (list pages). */
  initiallyOpen: boolean;
  onHideOnSite: () => void;
  onHashFromTorrent: () => void;
  onRefresh: () => void;
}

function summary(view: TabView): string {
  switch (view.status) {
    case 'looking-up':
    case 'reading':
      return t('statusLookingUp', formatNumber(view.hashes.length));
    case 'no-credentials':
      return t('statusNoToken');
    case 'no-hash':
      return t('statusNoHash');
    case 'error':
      return t('panelError');
    case 'done': {
      const others = view.candidates.filter((candidate) => !candidate.isCurrentSite);
      if (!others.length) return t('statusNoCandidates');
      return t('resultsHeading', formatNumber(others.length), formatNumber(new Set(others.map((c) => c.sid)).size));
    }
    default:
      return '';
  }
}

/** The in-page panel: lives in a closed shadow root, so the page cannot read what it lists. */
export function Panel({ view, initiallyOpen, onHideOnSite, onHashFromTorrent, onRefresh }: PanelProps) {
  const [open, setOpen] = useState(initiallyOpen);
  const others = view.candidates.filter((candidate) => !candidate.isCurrentSite).length;
  return (
    <section class={`panel status-${view.status}`} aria-label={t('extName')}>
      <div class="panel-head">
        <button type="button" class="panel-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span class="panel-logo" aria-hidden="true">◎</span>
          <span class="panel-title">{t('extName')}</span>
          <span class={`panel-count${others ? ' has' : ''}`}>{summary(view)}</span>
          <span class="chevron" aria-hidden="true">
            {open ? '▴' : '▾'}
          </span>
        </button>
      </div>
      {open && (
        <div class="panel-body">
          {view.status === 'error' && view.error && <FailureNotice failure={view.error} />}
          {view.status === 'no-credentials' && <p class="muted">{t('panelNoToken')}</p>}
          {view.status === 'no-hash' && view.torrentFileUrl && (
            <p>
              <button type="button" class="primary" onClick={onHashFromTorrent}>
                {t('hashFromTorrent')}
              </button>{' '}
              <span class="muted small">{t('hashFromTorrentHelp')}</span>
            </p>
          )}
          {view.torrentFileProblem && (
            <p class="notice warn" role="alert">
              {torrentProblemText(view.torrentFileProblem)}
            </p>
          )}
          {view.candidates.length > 0 && (
            <CandidateGroups
              candidates={view.candidates}
              showForHash={view.hashes.length > 1}
              onOpenAll={(urls) => urls.forEach((url) => window.open(url, '_blank', 'noopener'))}
            />
          )}
          <div class="panel-foot">
            {view.fetchedAt && <span class="muted small">{t('answeredAt', formatAge(view.fetchedAt))}</span>}
            {view.hashes.length > 0 && view.status !== 'no-credentials' && (
              <button type="button" class="link-button" onClick={onRefresh}>
                {t('refresh')}
              </button>
            )}
            <button type="button" class="link-button" onClick={onHideOnSite}>
              {t('hideOnSite')}
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
