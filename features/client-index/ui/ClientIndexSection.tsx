/**
 * "Index of your clients" (issue #10; every client, issue 33): the opt-in switch (it sends every
 * client torrent's hash to the lookup service: said plainly, off by default), "Sync now" and
 * "Find them now" (for every client), and per client by its Name: what its index holds, the
 * progress of its run under way and the time left, its last sync and last placing, its storage,
 * and why a run failed, in words; the whole index's counts; and the sites where the user turned
 * row marks on (each can be turned off here; they are turned on from the popup).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { formatAge, formatDuration, formatNumber, describeFailure, t } from '../../../utils/i18n';
import type { IndexChanged, IndexClientView, IndexCounts, IndexProblem, IndexProgressView, IndexRunView, IndexStatusView, PiecesSiteRunView } from '../client-index.messages';
import { sendToBackground } from '../../send-to-background';
import { clientProblemText } from '../../clients/ui/client-text';
import { CLIENT_NAMES } from '../../../utils/clients/client-types';
import { refocusAfterRemoval } from '../../../components/focus';
import { IDLE, StatusLine, type Status } from '../../../components/StatusLine';
import { CrossSeedPageLink } from '../../cross-seed-job/ui/CrossSeedPageLink';
import { CheckWithHint } from '../../../components/CheckWithHint';

/** A problem in one sentence. */
export function indexProblemText(problem: IndexProblem): string {
  switch (problem.kind) {
    case 'no-client':
      return t('indexProblemNoClient');
    case 'needs-token':
      return t('indexProblemNoToken');
    case 'client':
      return t('indexProblemClient', clientProblemText(problem.problem));
    case 'service':
      return t('indexProblemService', describeFailure(problem.failure).title);
  }
}

function progressText(progress: IndexProgressView): string {
  const text = progressPhaseText(progress);
  const timed = progress.secondsLeft !== undefined ? t('indexProgressTimeLeft', text, formatDuration(progress.secondsLeft)) : text;
  return progress.resumed ? `${t('indexProgressResumed')} ${timed}` : timed;
}

function progressPhaseText(progress: IndexProgressView): string {
  const done = formatNumber(progress.done);
  const total = formatNumber(progress.total);
  const requests = formatNumber(progress.requests);
  if (progress.phase === 'reading-client') return t('indexProgressReading');
  if (progress.phase === 'locating') return t('indexProgressPlacing', done, total, requests);
  if (progress.phase === 'reading-pieces') return t('indexProgressReadingPieces', done, total);
  if (progress.phase === 'asking-sites') return t('indexProgressAskingSite', progress.siteName ?? `#${progress.sid ?? ''}`, done, total, requests);
  if (progress.phase === 'done') return t('indexProgressDone', requests);
  return t('indexProgressAsking', done, total, requests);
}

/** Where a run stopped, in the user's words ("while reading your client", "while asking the lookup service (200 of 100,000)"). */
function phaseText(run: IndexRunView): string {
  const done = formatNumber(run.progress?.done ?? 0);
  const total = formatNumber(run.progress?.total ?? 0);
  switch (run.phase) {
    case 'reading-client':
      return t('indexPhaseReadingClient');
    case 'locating':
      return t('indexPhaseLocating', done, total);
    case 'reading-pieces':
      return t('indexPhaseReadingPieces', done, total);
    case 'asking-sites':
      return t('indexPhaseAskingSites');
    default:
      return t('indexPhaseAsking', done, total);
  }
}

/** What to do about a failed run: the service's own advice, or where to look for the client. */
function problemAction(problem: IndexProblem): string {
  switch (problem.kind) {
    case 'client':
      return t('indexFixClient');
    case 'service':
      return describeFailure(problem.failure).action;
    case 'needs-token':
      return t('indexFixToken');
    case 'no-client':
      return t('indexFixNoClient');
  }
}

/** How asking one site by pieces hash went in the last sync, in one sentence (the Test's words where they say the same). */
export function piecesSiteText(site: PiecesSiteRunView): string {
  const name = site.siteName;
  switch (site.outcome) {
    case 'done':
      return t('indexPiecesSiteDone', name, formatNumber(site.found), formatNumber(site.asked), formatNumber(site.requests));
    case 'cancelled':
      return t('indexPiecesSiteCancelled', name, formatNumber(site.found));
    case 'wrong-passkey':
      return t('piecesHashWrongPasskey', name);
    case 'no-api':
      return t('piecesHashNoApi', name);
    case 'rate-limited':
      return site.retryAfterSeconds !== undefined ? t('indexPiecesSiteRateLimitedFor', name, formatNumber(site.retryAfterSeconds)) : t('indexPiecesSiteRateLimited', name);
    case 'refused':
      return t('indexPiecesSiteRefused', name);
    case 'site-error':
      return t('piecesHashSiteError', name, String(site.status ?? ''));
    case 'unreachable':
      return t('piecesHashUnreachable', name);
    case 'needs-passkey':
      return t('indexPiecesSiteNeedsPasskey', name);
    case 'bad-passkey':
      return t('indexPiecesSiteBadPasskey', name);
    case 'no-permission':
      return t('piecesHashNoPermission', name);
    case 'bad-path':
      return t('indexPiecesSiteBadPath', name);
  }
}

/** The sites asked by pieces hash: why none is asked with this client, or how each went in its last sync. */
function PiecesSites({ view, status, id }: { view: IndexClientView; status: IndexStatusView; id: (name: string) => string | undefined }) {
  const last = view.lastSync?.pieces;
  if (!status.pieces && !last) return null;
  return (
    <div class="index-pieces" id={id('index-pieces')}>
      {view.pieces === 'unsupported' && (
        <p class="hint warn-text index-pieces-unsupported" id={id('index-pieces-unsupported')}>
          {t('indexPiecesUnsupported', CLIENT_NAMES[view.client.type])}
        </p>
      )}
      {last && (
        <>
          {last.read + last.skipped > 0 && (
            <p class="hint index-pieces-read" id={id('index-pieces-read')}>
              {t('indexPiecesRead', formatNumber(last.read), formatNumber(last.skipped))}
            </p>
          )}
          <ul class="index-pieces-sites" id={id('index-pieces-sites')} aria-label={t('piecesHashFieldSites')}>
            {last.sites.map((site) => (
              <li key={site.sid} data-sid={site.sid} data-outcome={site.outcome} class={site.outcome === 'done' ? undefined : 'warn-text'}>
                {piecesSiteText(site)}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function runText(run: IndexRunView, now: number): string {
  const when = formatAge(run.at, now);
  if (run.outcome === 'failed') {
    if (!run.problem) return t('indexLastSyncFailed', when, '');
    const why = indexProblemText(run.problem);
    return run.phase ? t('indexLastSyncStoppedWhile', when, phaseText(run), why) : t('indexLastSyncFailed', when, why);
  }
  if (run.outcome === 'cancelled') return t('indexLastSyncCancelled', when);
  if (run.job === 'place') return t('indexLastPlacing', when, formatNumber(run.located ?? 0), formatNumber(run.requests));
  return t('indexLastSync', when, formatNumber(run.torrents), formatNumber(run.asked), formatNumber(run.requests));
}

/** Under a failed run: what to do, and that nothing already read or answered is lost. */
function FailedRunAdvice({ run, counts, id }: { run: IndexRunView; counts: IndexCounts | undefined; id?: string }) {
  if (run.outcome !== 'failed' || !run.problem) return null;
  return (
    <p class="hint index-failed-advice" id={id}>
      {problemAction(run.problem)}{' '}
      {t('indexFailedKept', formatNumber(counts?.torrents ?? run.torrents), formatNumber(counts?.answered ?? 0))}
    </p>
  );
}

function countsText(counts: IndexCounts): string {
  return t('indexCounts', formatNumber(counts.torrents), formatNumber(counts.inClient), formatNumber(counts.canCrossSeed));
}

/**
 * One client's index: its Name, what it holds, its run under way or its last runs, its storage and
 * problems. The first client's parts keep the ids the section had with one client (index-progress,
 * index-last-sync…), so what reads them finds the first client's, as it found the one client's.
 */
function ClientRow({ view, status, now, first }: { view: IndexClientView; status: IndexStatusView; now: number; first: boolean }) {
  const { client, running, counts, lastSync, lastPlacing } = view;
  const id = (name: string) => (first ? name : undefined);
  return (
    <li class="index-client-row" data-client-id={client.id} data-client-name={client.name} data-outcome={running ? 'running' : (lastSync?.outcome ?? 'never')}>
      <h3 class="index-client-name">{client.name}</h3>
      <p class="index-client muted small">{t('indexClientLine', `${CLIENT_NAMES[client.type]} ${client.url}`)}</p>
      {view.problem && (
        <p class="status problem index-problem" role="alert" data-kind={view.problem.kind}>
          {indexProblemText(view.problem)}
        </p>
      )}
      {counts && <p class="index-counts">{countsText(counts)}</p>}
      {/* One live region per client: screen readers hear how far its run got. */}
      <div class="index-progress" id={id('index-progress')} role="status" aria-live="polite">
        {running && (
          <>
            <progress max={Math.max(running.total, 1)} value={running.phase === 'reading-client' ? undefined : running.done} aria-label={`${t('indexProgressLabel')}: ${client.name}`} />
            <span class="index-progress-text">{progressText(running)}</span>
          </>
        )}
      </div>
      {!running && (
        <p class="index-last-sync" id={id('index-last-sync')} data-outcome={lastSync?.outcome ?? 'never'}>
          {lastSync ? runText(lastSync, now) : t('indexNeverSynced')}
        </p>
      )}
      {!running && lastSync && <FailedRunAdvice run={lastSync} counts={counts} id={id('index-failed-advice')} />}
      {!!lastSync?.leftOut && <p class="hint index-left-out">{t('indexLeftOut', formatNumber(lastSync.leftOut))}</p>}
      {!running && <PiecesSites view={view} status={status} id={id} />}
      {view.storage && view.storage !== 'ok' && (
        <p class="hint warn-text index-storage" id={id('index-storage')} data-storage={view.storage}>
          {t(view.storage === 'full' ? 'indexStorageFull' : 'indexStorageFailed')}
        </p>
      )}
      {lastPlacing && !running && <p class="hint index-last-placing">{runText(lastPlacing, now)}</p>}
    </li>
  );
}

export function ClientIndexSection({ serviceHost }: { serviceHost: string }) {
  const [status, setShownStatus] = useState<IndexStatusView | undefined>();
  // Answers and announcements can arrive out of order: the newest revision wins.
  const shownRevision = useRef(-1);
  const setStatus = (next: IndexStatusView | undefined) => {
    if (!next) return;
    if (next.revision !== undefined) {
      if (next.revision < shownRevision.current) return;
      shownRevision.current = next.revision;
    }
    setShownStatus(next);
  };
  const [outcome, setOutcome] = useState<Status>(IDLE);
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    let alive = true;
    void sendToBackground('index:status', {}).then((answer) => alive && answer && setStatus(answer));
    // Progress and the end of a sync come as they happen, whoever started it (the alarm, another page).
    const listener = (message: unknown) => {
      const changed = message as Partial<IndexChanged>;
      if (changed?.type === 'index:changed' && changed.status) setStatus(changed.status);
    };
    browser.runtime.onMessage.addListener(listener);
    const clock = setInterval(() => setNow(Date.now()), 30_000);
    return () => {
      alive = false;
      browser.runtime.onMessage.removeListener(listener);
      clearInterval(clock);
    };
  }, []);

  const toggle = async (enabled: boolean) => {
    setOutcome({ kind: 'working', text: t('saving') });
    const answer = await sendToBackground('settings:save', { update: { clientIndexEnabled: enabled } });
    if (!answer || !('settings' in answer)) {
      setOutcome({ kind: 'problem', text: t('fieldRefused', t('fieldClientIndexEnabled')) });
      return;
    }
    setOutcome({ kind: 'ok', text: enabled ? t('indexTurnedOn') : t('indexTurnedOff') });
    setStatus(await sendToBackground('index:status', {}));
  };

  const act = async (type: 'index:sync' | 'index:place' | 'index:cancel') => {
    setOutcome(IDLE);
    setNow(Date.now());
    // The run's state comes as `index:changed` (the listener above), not as the answer.
    await sendToBackground(type, {});
  };

  const removeMarks = async (host: string, index: number) => {
    if (!status) return;
    setOutcome({ kind: 'working', text: t('saving') });
    const answer = await sendToBackground('settings:save', { update: { indexMarkHosts: status.markHosts.filter((other) => other !== host) } });
    if (!answer || !('settings' in answer)) {
      setOutcome({ kind: 'problem', text: t('fieldRefused', t('fieldIndexMarkHosts')) });
      return;
    }
    setOutcome({ kind: 'ok', text: t('indexMarksTurnedOff', host) });
    setStatus(await sendToBackground('index:status', {}));
    refocusAfterRemoval('index-mark-hosts', index, 'index-marks-heading');
  };

  if (!status) return <section class="card" id="client-index-section" aria-labelledby="client-index-heading" aria-busy="true"><h2 id="client-index-heading">{t('indexHeading')}</h2></section>;
  const clients = status.clients ?? [];
  const running = clients.some((view) => view.running);
  const counts = status.counts;
  return (
    <section class="card" id="client-index-section" aria-labelledby="client-index-heading">
      <div class="section-head">
        <h2 id="client-index-heading">{t('indexHeading')}</h2>
        <CrossSeedPageLink />
      </div>
      <p class="hint">{t('indexIntro')}</p>
      <CheckWithHint id="index-enabled" checked={status.enabled} warn onChange={(checked) => void toggle(checked)} label={t('indexEnabledLabel')} hint={t('indexEnabledHint', serviceHost)} />

      {status.enabled && (
        <div class="index-state" id="index-state">
          {status.problem && (
            <p class="status problem index-problem" id="index-problem" role="alert" data-kind={status.problem.kind}>
              {indexProblemText(status.problem)}
            </p>
          )}
          {/* The whole index: with one client its own counts, with several every client's together. */}
          {counts && (
            <p class="index-counts index-totals" id="index-counts">
              {clients.length > 1 ? t('indexTotals', countsText(counts)) : countsText(counts)}
            </p>
          )}
          {clients.length > 0 && (
            <ul class="index-clients" id="index-clients" aria-label={t('indexClientsLabel')}>
              {clients.map((view, at) => (
                <ClientRow key={view.client.id} view={view} status={status} now={now} first={at === 0} />
              ))}
            </ul>
          )}
          <div class="buttons">
            <button type="button" class="primary" id="index-sync" disabled={running || status.problem?.kind === 'no-client'} onClick={() => void act('index:sync')}>
              {t('indexSyncNow')}
            </button>
            {running && (
              <button type="button" id="index-cancel" onClick={() => void act('index:cancel')}>
                {t('indexCancel')}
              </button>
            )}
          </div>
          {counts && counts.toPlace > 0 && (
            <div class="index-placing" id="index-placing">
              <p class="hint">
                {t('indexToPlace', formatNumber(counts.toPlace))}{' '}
                <button type="button" class="link-button" id="index-place" disabled={running} onClick={() => void act('index:place')}>
                  {t('indexPlaceNow')}
                </button>
              </p>
            </div>
          )}
        </div>
      )}

      <h3 id="index-marks-heading" tabIndex={-1}>
        {t('indexMarksHeading')}
      </h3>
      <p class="hint">{t('indexMarksIntro')}</p>
      {status.markHosts.length ? (
        <ul class="host-list" id="index-mark-hosts" aria-labelledby="index-marks-heading">
          {status.markHosts.map((host, index) => (
            <li key={host}>
              <code>{host}</code>
              <button type="button" aria-label={t('indexMarksOffOn', host)} onClick={() => void removeMarks(host, index)}>
                {t('indexMarksOff')}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t('indexMarksNone')}</p>
      )}
      <StatusLine status={outcome} id="index-status" />
    </section>
  );
}
