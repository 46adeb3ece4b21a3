import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { AskForSites } from '../../features/sites/ui/AskForSites';
import { CandidateGroups } from '../../features/lookup/ui/CandidateGroups';
import { anyFoundByPieces, FoundByTag } from '../../features/lookup/ui/FoundBy';
import { CopyButton } from '../../components/CopyButton';
import { CandidateCrossSeed, CrossSeedAll, useCrossSeeds, type PopupCrossSeeds } from '../../features/cross-seed/ui/PopupCrossSeed';
import { FailureNotice, Notice } from '../../components/FailureNotice';
import { heldHashes, InYourClient, useClientStatus } from '../../features/clients/ui/InYourClient';
import { ListIndex } from '../../features/client-index/ui/ListIndex';
import { allLinks, countOthers } from '../../features/lookup/ui/site-groups';
import { LogoIcon, PopOutIcon, RefreshIcon, SettingsIcon } from '../../components/icons';
import { RecommendedSites } from '../../features/account/ui/RecommendedSites';
import { lookingUpText, resultsText, viewSummary } from '../../features/lookup/ui/view-summary';
import { pageProblemText, torrentProblemText } from '../../features/lookup/ui/page-problem-text';
import { formatAge, formatDuration, formatNumber, t } from '../../utils/i18n';
import type { ClientStatus } from '../../features/clients/clients.messages';
import type { TabView, ViewChanged } from '../../features/lookup/lookup.messages';
import type { ServiceErrorKind } from '../../utils/iyuu/service-errors';
import { sendToBackground } from '../../features/send-to-background';
import { CrossSeedPageLink } from '../../features/cross-seed-job/ui/CrossSeedPageLink';

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

/** Hashes listed before the rest fold away (list pages can hold a hundred). */
const HASHES_SHOWN = 3;

/** Failures the settings can fix, and failures worth asking again for (a rate limit retries by itself). */
const FIX_IN_SETTINGS: ServiceErrorKind[] = ['auth', 'not-bound', 'no-credentials', 'not-permitted', 'bad-sign', 'network', 'bad-request'];
const WORTH_RETRYING: ServiceErrorKind[] = ['stale-site-hash', 'expired-timestamp', 'network', 'timeout', 'bad-answer', 'server', 'bad-request'];

function openTabs(urls: string[]) {
  for (const url of urls) void browser.tabs.create({ url, active: false });
}

function openOptions() {
  void browser.runtime.openOptionsPage();
}

export function Popup({ tabId, poppedOut }: PopupProps) {
  const [view, setView] = useState<TabView | undefined>();
  const [busy, setBusy] = useState(false);
  const [now, setNow] = useState(Date.now());
  // Sites the user just picked in the ask-once prompt: shown as theirs before the background's next answer.
  const [held, setHeld] = useState<number[] | undefined>();

  useEffect(() => {
    let alive = true;
    void sendToBackground('view:get', { tabId }).then(async (answer) => {
      if (!alive) return;
      setView(answer);
      // No content script here: the toolbar click granted activeTab, so read this page once.
      if (answer.status === 'not-a-tracker' && !poppedOut && /^https?:/.test(answer.url ?? '')) {
        // Its view comes as `view:changed` (the listener below).
        await sendToBackground('view:read-once', { tabId });
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
      await sendToBackground('view:refresh', { tabId });
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
      await sendToBackground('view:hash-from-torrent', { tabId });
    } finally {
      setBusy(false);
    }
  };

  const popOut = () => {
    void browser.tabs.create({ url: browser.runtime.getURL(`/popup.html?tabId=${tabId}`) });
    window.close();
  };

  // "Cross-seed" / "Cross-seed all" on this page, and their outcomes (announced by the background).
  const crossSeeds = useCrossSeeds(tabId, view);
  // What the user's default client holds of this page's torrents: asked by the popup alone, and
  // again after a cross-seed added one.
  const client = useClientStatus(tabId, view, crossSeeds.added);

  const shown = useMemo(() => {
    if (!view || !held) return view;
    const mine = new Set(held);
    return { ...view, candidates: view.candidates.map((candidate) => ({ ...candidate, held: mine.has(candidate.sid) })) };
  }, [view, held]);

  return (
    <main class={`popup${poppedOut ? ' popped-out' : ''}`} aria-busy={!view || view.status === 'looking-up' || view.status === 'reading'}>
      <header class="bar">
        <h1>
          <LogoIcon />
          {t('extName')}
        </h1>
        <div class="bar-actions">
          {!poppedOut && (
            <button type="button" class="icon-button pop-out" onClick={popOut} title={t('popOut')} aria-label={t('popOut')}>
              <PopOutIcon />
            </button>
          )}
          <button type="button" class="icon-button settings" onClick={openOptions} title={t('openOptions')} aria-label={t('openOptions')}>
            <SettingsIcon />
          </button>
        </div>
      </header>
      {/* One stable live region: screen readers hear how the lookup ends without tabbing to it. */}
      <p class="sr-only" role="status" aria-live="polite">
        {view && view.hashes.length > 0 ? viewSummary(view) : ''}
      </p>
      <div class="content">
        {shown ? (
          <TabContent view={shown} client={client} crossSeeds={crossSeeds} now={now} busy={busy} onRefresh={refresh} onHashFromTorrent={hashFromTorrent} />
        ) : (
          <Placeholder />
        )}
      </div>
      {view && <AskForSites onSaved={setHeld} />}
      <RecommendedSites />
      <footer class="popup-footer">
        <CrossSeedPageLink />
      </footer>
    </main>
  );
}

/** Before the first answer: the shape of what comes, so nothing jumps when it does. */
function Placeholder() {
  return (
    <div class="placeholder" aria-hidden="true">
      <div class="skeleton line short" />
      <div class="skeleton line" />
      <div class="skeleton block" />
    </div>
  );
}

interface ContentProps {
  view: TabView;
  /** What the default torrent client holds (undefined until it answered, or where nothing is asked). */
  client?: ClientStatus;
  crossSeeds?: PopupCrossSeeds;
  now: number;
  busy: boolean;
  onRefresh: () => void;
  onHashFromTorrent: () => void;
}

function TabContent({ view, client, crossSeeds, now, busy, onRefresh, onHashFromTorrent }: ContentProps) {
  const { torrents, sites } = countOthers(view.candidates);
  const links = allLinks(view.candidates);
  const lookingUp = view.status === 'looking-up';
  const heading = resultsText(torrents, sites);
  const inClient = heldHashes(client);
  // What the buttons go by: once the client answered (or could not be asked, or there is none: then
  // a click says why), every candidate it does not hold has "Cross-seed".
  const clientHolds = client && client.state !== 'no-hashes' ? (inClient ?? new Map<string, string>()) : undefined;
  return (
    <>
      {view.host && (
        <p class="page-site">
          {view.siteName && <strong>{view.siteName}</strong>} <span class="muted">{view.host}</span>
        </p>
      )}

      {view.access === 'once' && view.host && <UseOnSite host={view.host} />}

      {view.hashes.length > 0 && <Hashes hashes={view.hashes} />}

      <InYourClient status={client} view={view} onOpenSettings={openOptions} />

      <ListIndex view={view} onOpenSettings={openOptions} />

      <StatusSection view={view} now={now} busy={busy} onRefresh={onRefresh} onHashFromTorrent={onHashFromTorrent} />

      {view.candidates.length > 0 && (
        <section class={`results${lookingUp ? ' stale' : ''}`} aria-labelledby="results-heading">
          <div class="section-head">
            <h2 id="results-heading">{torrents ? heading : t('candidatesHeading')}</h2>
            {links && <CopyButton text={links} label={t('copyAllLinks')} />}
          </div>
          {crossSeeds && <CrossSeedAll candidates={view.candidates} crossSeeds={crossSeeds} inClient={clientHolds} />}
          <CandidateGroups
            candidates={view.candidates}
            onOpenAll={openTabs}
            showForHash={view.hashes.length > 1}
            inClient={inClient}
            extra={crossSeeds && ((candidate) => <CandidateCrossSeed candidate={candidate} crossSeeds={crossSeeds} inClient={clientHolds} />)}
            tags={anyFoundByPieces(view.candidates) ? (candidate) => candidate.foundBy && <FoundByTag by={candidate.foundBy} /> : undefined}
          />
        </section>
      )}

      {view.hashes.length > 0 && view.status !== 'no-credentials' && (
        <p class="age">
          <span class="muted">
            {lookingUp
              ? ''
              : view.fetchedAt
                ? view.fromCache
                  ? t('answeredCached', formatAge(view.fetchedAt, now))
                  : t('answeredAt', formatAge(view.fetchedAt, now))
                : ''}
          </span>
          <button type="button" class={`link-button refresh${busy || lookingUp ? ' spinning' : ''}`} onClick={onRefresh} disabled={busy || lookingUp}>
            <RefreshIcon />
            {t('refresh')}
          </button>
        </p>
      )}
    </>
  );
}

function Hashes({ hashes }: { hashes: TabView['hashes'] }) {
  const row = (found: TabView['hashes'][number]) => (
    <li key={found.hash} class="hash">
      <code class="hash-value">{found.hash}</code>
      <CopyButton text={found.hash} describedAs={found.hash} />
      <span class="muted source">{t(SOURCE_KEYS[found.source])}</span>
    </li>
  );
  const rest = hashes.slice(HASHES_SHOWN);
  return (
    <section class="hashes" aria-labelledby="hashes-heading">
      <div class="section-head">
        <h2 id="hashes-heading">{t('hashesHeading', formatNumber(hashes.length))}</h2>
        {hashes.length > 1 && <CopyButton text={hashes.map((found) => found.hash).join('\n')} label={t('copyAllHashes')} />}
      </div>
      <ul>{hashes.slice(0, HASHES_SHOWN).map(row)}</ul>
      {rest.length > 0 && (
        <details>
          <summary>{t('moreHashes', formatNumber(rest.length))}</summary>
          <ul>{rest.map(row)}</ul>
        </details>
      )}
    </section>
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

function Actions({ children }: { children: ComponentChildren }) {
  return <p class="actions">{children}</p>;
}

function StatusSection({ view, now, busy, onRefresh, onHashFromTorrent }: ContentProps) {
  switch (view.status) {
    case 'not-a-tracker':
      return (
        <Notice kind="info" title={t('statusNotTracker')}>
          <p>{t('statusNotTrackerHelp')}</p>
        </Notice>
      );
    case 'reading':
      return (
        <>
          <Notice kind="info" title={t('statusReading')} />
          <div class="skeleton block" aria-hidden="true" />
        </>
      );
    case 'no-hash':
      return (
        <Notice kind="info" title={t('statusNoHash')}>
          {view.problem && <p>{pageProblemText(view.problem)}</p>}
          {view.torrentFileUrl && (
            <>
              <Actions>
                <button type="button" class="primary" onClick={onHashFromTorrent} disabled={busy}>
                  {t('hashFromTorrent')}
                </button>
              </Actions>
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
          <Actions>
            <button type="button" class="primary" onClick={openOptions}>
              {t('openSettings')}
            </button>
          </Actions>
        </Notice>
      );
    case 'looking-up':
      return (
        <>
          <div class="notice info looking">
            <strong class="notice-title">{lookingUpText(view.hashes.length)}</strong>
          </div>
          {/* The space the answer will take, so it does not push things about when it comes. */}
          {!view.candidates.length && <div class="skeleton block" aria-hidden="true" />}
        </>
      );
    case 'error': {
      const kind = view.error?.kind;
      return view.error ? (
        <FailureNotice failure={view.error} now={now}>
          {view.candidates.length > 0 && <p class="muted small">{t('showingOlderAnswer')}</p>}
          {kind && (FIX_IN_SETTINGS.includes(kind) || WORTH_RETRYING.includes(kind)) && (
            <Actions>
              {WORTH_RETRYING.includes(kind) && (
                <button type="button" class="primary" onClick={onRefresh} disabled={busy}>
                  {t('tryAgain')}
                </button>
              )}
              {FIX_IN_SETTINGS.includes(kind) && (
                <button type="button" onClick={openOptions}>
                  {t('openSettings')}
                </button>
              )}
            </Actions>
          )}
        </FailureNotice>
      ) : null;
    }
    case 'waiting-for-user':
      return (
        <Notice kind="warn" title={t('statusHeld')}>
          <p>{t('statusHeldHelp')}</p>
          <Actions>
            <button type="button" class="primary look-up-again" onClick={onRefresh} disabled={busy}>
              {t('lookUpAgain')}
            </button>
          </Actions>
        </Notice>
      );
    case 'done':
      return (
        <>
          {view.clockSkewSeconds !== undefined && (
            <Notice
              kind="warn"
              title={t('clockCorrected', formatDuration(view.clockSkewSeconds), view.clockSkewSeconds > 0 ? t('clockBehind') : t('clockAhead'))}
            />
          )}
          {countOthers(view.candidates).torrents === 0 && (
            <Notice kind="info" title={t('statusNoCandidates')}>
              <p>{t('statusNoCandidatesHelp')}</p>
            </Notice>
          )}
        </>
      );
  }
}
