import { Component } from 'preact';
import type { PageCandidate, PageView } from '../lookup.messages';
import type { PageCrossSeed } from '../../cross-seed/cross-seed.messages';
import { describeFailure, formatAge, formatNumber, t } from '../../../utils/i18n';
import { CandidateGroups } from './CandidateGroups';
import { countOthers } from './site-groups';
import { viewSummary } from './view-summary';
import { ChevronIcon, CloseIcon, LogoIcon } from '../../../components/icons';
import { pageProblemText, torrentProblemText } from './page-problem-text';

export interface PanelProps {
  /** Only what the page may learn (features/lookup/panel-view.ts): the panel cannot show which sites the user holds. */
  view: PageView;
  /** 'inline' sits in the page's flow under the torrent's title and starts open; 'floating' is a corner badge that opens a card. */
  mode: 'inline' | 'floating';
  onHideOnSite: () => void;
  onHashFromTorrent: () => void;
  onRefresh: () => void;
  /** The card opened or closed (the mount re-places a floating badge while it is closed). */
  onToggle?: (open: boolean) => void;
  /** "Cross-seed" on a candidate (a trusted click only): opens the extension's confirmation window, never a cross-seed itself. */
  onCrossSeed: (candidate: PageCandidate) => void;
  /** The outcomes of this page's cross-seeds, as sentences (from the background). */
  crossSeeds?: readonly PageCrossSeed[];
}

/**
 * A button's action, only for the user's own click: a page script can dispatch clicks too, and
 * must not make the extension look up, download or hide anything.
 */
export function trusted(action: () => void): (event: Event) => void {
  return (event) => {
    if (event.isTrusted) action();
  };
}

/** What the list region says while it lists nothing (generated content, like everything in it). */
function listPlaceholder(view: PageView): string {
  if (view.status === 'done') return t('statusNoCandidates');
  if (view.status === 'looking-up' || view.status === 'reading') return viewSummary(view);
  return '';
}

/** Arrow keys, Home and End move focus among the list's links and buttons (it is one Tab stop). */
function moveWithin(event: KeyboardEvent): void {
  const keys = ['ArrowDown', 'ArrowRight', 'ArrowUp', 'ArrowLeft', 'Home', 'End'];
  if (!keys.includes(event.key)) return;
  const list = event.currentTarget as HTMLElement;
  const items = [...list.querySelectorAll<HTMLElement>('a[href], button')];
  if (!items.length) return;
  event.preventDefault();
  const at = items.indexOf((list.getRootNode() as ShadowRoot | Document).activeElement as HTMLElement);
  const next =
    event.key === 'Home' ? 0 : event.key === 'End' ? items.length - 1 : event.key === 'ArrowDown' || event.key === 'ArrowRight' ? Math.min(items.length - 1, at + 1) : Math.max(0, at - 1);
  items[next]!.focus();
}

/** The badge's few characters, like the toolbar badge: a count, "…" while looking up, "!" when something needs the user. */
function badgeText(view: PageView): string {
  if (view.status === 'done') return formatNumber(countOthers(view.candidates).torrents);
  return view.status === 'looking-up' || view.status === 'reading' ? '…' : view.status === 'no-hash' || view.status === 'waiting-for-user' ? '?' : '!';
}

/**
 * The in-page panel. It lives in a closed shadow root (see the tracker content script's mount), so
 * the page cannot read what it lists. A class component: the content script ships no hooks module.
 */
export class Panel extends Component<PanelProps, { open: boolean }> {
  constructor(props: PanelProps) {
    super(props);
    this.state = { open: props.mode === 'inline' };
  }

  private toggle = (open = !this.state.open) => {
    this.setState({ open });
    this.props.onToggle?.(open);
  };

  private onKeyDown = (event: KeyboardEvent) => {
    // Escape folds a floating card back into its badge; focus stays on the toggle (the same element).
    if (event.key === 'Escape' && this.props.mode === 'floating' && this.state.open) this.toggle(false);
  };

  /**
   * "Cross-seed" on every candidate alike (the page may not learn which ones the client holds), a
   * stop of the list's roving focus, its word and its outcome generated content inside the list's
   * fixed-size region: nothing here changes what a page script can measure.
   */
  private crossSeed = (candidate: PageCandidate) => {
    const outcome = this.props.crossSeeds?.find((entry) => entry.sid === candidate.sid && entry.torrentId === candidate.torrentId);
    return (
      <>
        <button type="button" class="link-button cross-seed" tabIndex={-1} data-text={t('crossSeedButton')} onClick={trusted(() => this.props.onCrossSeed(candidate))} />
        {outcome?.lines.map((line) => <span class={`cross-seed-outcome${outcome.ok ? ' ok' : ''}`} data-text={line} />)}
      </>
    );
  };

  render({ view, mode, onHideOnSite, onHashFromTorrent, onRefresh }: PanelProps, { open }: { open: boolean }) {
    const summary = viewSummary(view);
    const failure = view.status === 'error' && view.error ? describeFailure(view.error) : undefined;
    const floating = mode === 'floating';
    const { torrents } = countOthers(view.candidates);
    return (
      <section class={`panel ${mode} status-${view.status}${open ? ' open' : ''}`} aria-label={t('extName')} onKeyDown={this.onKeyDown}>
        <button
          type="button"
          class={`panel-toggle${torrents ? ' has' : ''}`}
          aria-expanded={open}
          // Folded into the badge, the few characters need the whole sentence as the button's name.
          aria-label={floating && !open ? t('panelSummaryLabel', summary) : undefined}
          title={floating ? (open ? t('closePanel') : summary) : undefined}
          onClick={() => this.toggle()}
        >
          <LogoIcon />
          {floating && !open ? (
            <span class="badge-text" data-text={badgeText(view)} />
          ) : (
            <>
              <span class="panel-title">{t('extName')}</span>
              <span class="panel-summary" data-text={summary} />
              {floating ? <CloseIcon /> : <ChevronIcon />}
            </>
          )}
        </button>
        {open && (
          <div class="panel-body">
            {failure && (
              <div class="notice error" data-kind={view.error?.kind}>
                <strong class="notice-title">{failure.title}</strong>
                <p>{failure.action}</p>
              </div>
            )}
            {view.status === 'no-credentials' && <p>{t('panelNoToken')}</p>}
            {view.status === 'waiting-for-user' && (
              <p>
                <button type="button" class="primary look-up-again" onClick={trusted(onRefresh)}>
                  {t('lookUpAgain')}
                </button>{' '}
                <span class="muted small">{t('statusHeldHelp')}</span>
              </p>
            )}
            {view.status === 'no-hash' && view.problem && <p>{pageProblemText(view.problem)}</p>}
            {view.status === 'no-hash' && view.torrentFileUrl && (
              <p>
                <button type="button" class="primary" onClick={trusted(onHashFromTorrent)}>
                  {t('hashFromTorrent')}
                </button>{' '}
                <span class="muted small">{t('hashFromTorrentHelp')}</span>
              </p>
            )}
            {view.torrentFileProblem && <p class="notice warn">{torrentProblemText(view.torrentFileProblem)}</p>}
            {view.hashes.length > 0 && (
              // Present whenever the page has a hash, whatever the answer: one Tab stop of a fixed
              // size, its words generated content, so nothing here measures the answer (which a
              // service may shape by the sites the user reported).
              <div
                class="panel-list"
                tabIndex={0}
                role="group"
                aria-label={t('panelListLabel')}
                onKeyDown={moveWithin}
                data-text={view.candidates.length ? undefined : listPlaceholder(view)}
              >
                {view.candidates.length > 0 && (
                  <CandidateGroups
                    candidates={view.candidates}
                    showForHash={view.hashes.length > 1}
                    inPage
                    extra={this.crossSeed}
                    onOpenAll={(urls) => urls.forEach((url) => window.open(url, '_blank', 'noopener'))}
                  />
                )}
              </div>
            )}
            <div class="panel-foot">
              {view.fetchedAt && <span class="muted small">{t('answeredAt', formatAge(view.fetchedAt))}</span>}
              {view.hashes.length > 0 && view.status !== 'no-credentials' && (
                <button type="button" class="link-button" onClick={trusted(onRefresh)} disabled={view.status === 'looking-up'}>
                  {t('refresh')}
                </button>
              )}
              <button type="button" class="link-button" onClick={trusted(onHideOnSite)}>
                {t('hideOnSite')}
              </button>
            </div>
          </div>
        )}
      </section>
    );
  }
}
