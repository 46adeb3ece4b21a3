import { useCallback, useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { CandidateGroups } from '../../components/CandidateGroups';
import { CopyButton } from '../../components/CopyButton';
import { FailureNotice, Notice } from '../../components/FailureNotice';
import { allLinks } from '../../components/groups';
import { RecommendedSites } from '../../components/RecommendedSites';
import { torrentProblemText } from '../../components/torrentProblem';
import { formatAge, formatDuration, formatNumber, t } from '../../utils/i18n';
import type { TabView, ViewChanged } from '../../utils/messages';
import { sendToBackground } from '../../utils/send';

export interface PopupProps {
  tabId: number;
  /** Opened in a tab of its own (pop out) rather than as the toolbar popup. */
  poppedOut: boolean;
}

const SOURCE_KEYS = {
  'info-row': 'sourceInfoRow',
  magnet: 'sourceMagnet',
  'site-api': 'sourceSiteApi',
  'torrent-file': 'sourceTorrentFile',
  label: 'sourceLabel',
} as const;

function openTabs(urls: string[]) {
  for (const url of urls) void browser.tabs.create({ url, active: false });
}

export function Popup({ tabId, poppedOut }: PopupProps) {
  const [view, setView] = useState<TabView | undefined>();
  const [busy, setBusy] = useState(false);
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    let alive = true;
    void sendToBackground('view:get', { tabId }).then(async (answer) => {
      if (!alive) return;
      setView(answer);
      // No content script here: the toolbar click granted activeTab, so read this page once.
      if (answer.status === 'not-a-tracker' && !poppedOut && /^https?:/.test(answer.url ?? '')) {
        const read = await sendToBackground('view:read-once', { tabId });
        if (alive) setView(read);
      }
    });
    const listener = (message: unknown) => {
      const changed = message as Partial<ViewChanged>;
      if (changed?.type === 'view:changed' && changed.view?.tabId === tabId) setView(changed.view);
    };
    browser.runtime.onMessage.addListener(listener);
    const clock = setInterval(() => setNow(Date.now()), 1000);
    return () => {
      alive = false;
      browser.runtime.onMessage.removeListener(listener);
      clearInterval(clock);
    };
  }, [tabId, poppedOut]);

  const refresh = useCallback(async () => {
    setBusy(true);
    try {
      setView(await sendToBackground('view:refresh', { tabId }));
    } finally {
      setBusy(false);
    }
  }, [tabId]);

  // A rate limit lifts by itself: ask again when it does, so the user need not.
  const retryAt = view?.status === 'error' ? view.error?.retryAt : undefined;
  useEffect(() => {
    if (!retryAt) return;
    const timer = setTimeout(() => void refresh(), Math.max(0, retryAt - Date.now()) + 250);
    return () => clearTimeout(timer);
  }, [retryAt, refresh]);

  const hashFromTorrent = async () => {
    setBusy(true);
    try {
      setView(await sendToBackground('view:hash-from-torrent', { tabId }));
    } finally {
      setBusy(false);
    }
  };

  const popOut = () => {
    void browser.tabs.create({ url: browser.runtime.getURL(`/popup.html?tabId=${tabId}`) });
    if (!poppedOut) window.close();
  };

  return (
    <main class={`popup${poppedOut ? ' popped-out' : ''}`} aria-busy={!view || view.status === 'looking-up'}>
      <header class="bar">
        <h1>{t('extName')}</h1>
        <div class="bar-actions">
          {!poppedOut && (
            <button type="button" class="icon-button" onClick={popOut} title={t('popOut')} aria-label={t('popOut')}>
              ⧉
            </button>
          )}
          <button
            type="button"
            class="icon-button"
            onClick={() => void browser.runtime.openOptionsPage()}
            title={t('openOptions')}
            aria-label={t('openOptions')}
          >
            ⚙
          </button>
        </div>
      </header>
      {!view ? (
        <Notice kind="info" title={t('statusReading')} />
      ) : (
        <TabContent view={view} now={now} busy={busy} onRefresh={refresh} onHashFromTorrent={hashFromTorrent} />
      )}
      <RecommendedSites />
    </main>
  );
}

function TabContent({
  view,
  now,
  busy,
  onRefresh,
  onHashFromTorrent,
}: {
  view: TabView;
  now: number;
  busy: boolean;
  onRefresh: () => void;
  onHashFromTorrent: () => void;
}) {
  const others = view.candidates.filter((candidate) => !candidate.isCurrentSite);
  const siteCount = new Set(others.map((candidate) => candidate.sid)).size;
  return (
    <>
      {view.host && (
        <p class="page-site">
          {view.siteName ? (
            <>
              <strong>{view.siteName}</strong> <span class="muted">{view.host}</span>
            </>
          ) : (
            <span class="muted">{view.host}</span>
          )}
        </p>
      )}

      {view.access === 'once' && view.host && <UseOnSite host={view.host} />}

      {view.hashes.length > 0 && (
        <section class="hashes" aria-labelledby="hashes-heading">
          <h2 id="hashes-heading">{t('hashesHeading', formatNumber(view.hashes.length))}</h2>
          <ul>
            {view.hashes.map((found) => (
              <li key={found.hash} class="hash">
                <code class="hash-value">{found.hash}</code>
                <span class="muted source">{t(SOURCE_KEYS[found.source])}</span>
                <CopyButton text={found.hash} describedAs={found.hash} />
              </li>
            ))}
          </ul>
        </section>
      )}

      <StatusSection view={view} now={now} onHashFromTorrent={onHashFromTorrent} busy={busy} />

      {view.candidates.length > 0 && (
        <section class="results" aria-labelledby="results-heading">
          <div class="section-head">
            <h2 id="results-heading">{t('resultsHeading', formatNumber(others.length), formatNumber(siteCount))}</h2>
            {allLinks(view.candidates) && <CopyButton text={allLinks(view.candidates)} label={t('copyAllLinks')} describedAs={t('resultsHeading', formatNumber(others.length), formatNumber(siteCount))} />}
          </div>
          <CandidateGroups candidates={view.candidates} onOpenAll={openTabs} showForHash={view.hashes.length > 1} />
        </section>
      )}

      {view.hashes.length > 0 && view.status !== 'no-credentials' && (
        <p class="age">
          {view.fetchedAt && (view.status === 'done' || view.status === 'error') && (
            <span class="muted">
              {view.fromCache ? t('answeredCached', formatAge(view.fetchedAt, now)) : t('answeredAt', formatAge(view.fetchedAt, now))}
            </span>
          )}
          <button type="button" class="link-button refresh" onClick={onRefresh} disabled={busy || view.status === 'looking-up'}>
            {t('refresh')}
          </button>
        </p>
      )}
    </>
  );
}

/** "Use on this site": asks for this host's permission within the click, then registers the reader. */
function UseOnSite({ host }: { host: string }) {
  const [state, setState] = useState<'idle' | 'enabled' | 'refused'>('idle');
  const enable = () => {
    void browser.permissions
      .request({ origins: [`*://${host}/*`] })
      .then(async (granted) => {
        if (!granted) return setState('refused');
        await sendToBackground('site:enable', { host });
        setState('enabled');
      })
      .catch(() => setState('refused'));
  };
  return (
    <div class="notice info use-on-site">
      <p>{t('readOnceNote', host)}</p>
      {state === 'enabled' ? (
        <p role="status">{t('siteEnabled', host)}</p>
      ) : (
        <button type="button" onClick={enable}>
          {t('useOnSite')}
        </button>
      )}
      {state === 'refused' && <p role="alert">{t('permissionRefused', host)}</p>}
    </div>
  );
}

function StatusSection({ view, now, onHashFromTorrent, busy }: { view: TabView; now: number; onHashFromTorrent: () => void; busy: boolean }) {
  switch (view.status) {
    case 'not-a-tracker':
      return (
        <Notice kind="info" title={t('statusNotTracker')}>
          <p>{t('statusNotTrackerHelp')}</p>
        </Notice>
      );
    case 'reading':
      return <Notice kind="info" title={t('statusReading')} />;
    case 'no-hash':
      return (
        <Notice kind="info" title={t('statusNoHash')}>
          {view.problem && <p>{t(view.problem === 'site-gives-no-hash' ? 'problemSiteGivesNoHash' : view.problem === 'needs-login' ? 'problemNeedsLogin' : 'problemNotLoaded')}</p>}
          {view.torrentFileUrl && (
            <>
              <button type="button" class="primary" onClick={onHashFromTorrent} disabled={busy}>
                {t('hashFromTorrent')}
              </button>
              <p class="muted small">{t('hashFromTorrentHelp')}</p>
            </>
          )}
          {view.torrentFileProblem && (
            <p class="torrent-problem" role="alert">
              {torrentProblemText(view.torrentFileProblem)}
            </p>
          )}
        </Notice>
      );
    case 'no-credentials':
      return (
        <Notice kind="warn" title={t('statusNoToken')}>
          <p>{t('statusNoTokenHelp')}</p>
          <button type="button" class="primary" onClick={() => void browser.runtime.openOptionsPage()}>
            {t('openOptions')}
          </button>
        </Notice>
      );
    case 'looking-up':
      return (
        <div class="notice info looking" role="status">
          <strong class="notice-title">{t('statusLookingUp', formatNumber(view.hashes.length))}</strong>
          <div class="skeleton" aria-hidden="true" />
        </div>
      );
    case 'error':
      return view.error ? (
        <FailureNotice failure={view.error} now={now}>
          {view.candidates.length > 0 && <p class="muted small">{t('showingOlderAnswer')}</p>}
        </FailureNotice>
      ) : null;
    case 'done':
      return (
        <>
          {view.clockSkewSeconds !== undefined && (
            <Notice kind="warn" title={t('clockCorrected', formatDuration(view.clockSkewSeconds), view.clockSkewSeconds > 0 ? t('clockBehind') : t('clockAhead'))} />
          )}
          {view.candidates.filter((candidate) => !candidate.isCurrentSite).length === 0 && (
            <Notice kind="info" title={t('statusNoCandidates')}>
              <p>{t('statusNoCandidatesHelp')}</p>
            </Notice>
          )}
        </>
      );
  }
}
