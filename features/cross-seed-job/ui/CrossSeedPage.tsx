/**
 * "Cross-seed your clients" (cross-seed.html, issues 17 and 33): the preview per site and per client
 * from the indexes ("Find what I can cross-seed": "NAS → Seedbox: 120"), each site's pace and
 * readiness, "Start cross-seeding" the ticked sites, the job's progress (a client that stopped
 * answering named, with "Resume" for it) and its report, and the switches for new finds. The job's state comes once as
 * `job:status` on open, then as `job:changed`, each what changed since the previous revision (a gap
 * asks `job:status` again); commands answer nothing of it. Everything a service or a site said is
 * rendered as text, never as HTML.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { CopyButton } from '../../../components/CopyButton';
import { IDLE, StatusLine, type Status } from '../../../components/StatusLine';
import { formatDateTime, formatNumber, t, type MessageKey } from '../../../utils/i18n';
import { crossSeedText } from '../../../utils/cross-seed-engine/result-text';
import { permissionPattern } from '../../../utils/permission-pattern';
import { clientProblemText } from '../../clients/ui/client-text';
import { sendToBackground } from '../../send-to-background';
import type {
  JobChange,
  JobChanged,
  JobClientView,
  JobOutcome,
  JobPreview,
  JobRefused,
  JobRoute,
  JobSitePreview,
  JobSiteState,
  JobSiteView,
  JobSwitches,
  JobTorrent,
  JobView,
  SiteReadiness,
} from '../cross-seed-job.messages';
import { applyJobChange } from '../job-change';
import { GROUPS, formatBytes, groupOutcomes, onDiskText, outcomeClientText, outcomeLines, reportText, routeText, timeLeftText } from './job-text';
import { FoundByTag } from '../../lookup/ui/FoundBy';
import { CheckWithHint } from '../../../components/CheckWithHint';

const TORRENTS_PAGE = 100;

const failed = (error: unknown): Status => ({ kind: 'problem', text: t('jobFailed', error instanceof Error ? error.message : String(error)) });

function openOptions() {
  void browser.runtime.openOptionsPage();
}

/**
 * The job's state: `job:status` once, then every `job:changed` applied on the revision it follows
 * (job-change.ts); a change that does not follow what is shown (one missed) asks `job:status` again,
 * and the changes heard meanwhile are applied after it. An older revision never replaces a newer one.
 */
function useJob(): JobView | undefined {
  const [job, setShown] = useState<JobView | undefined>();
  useEffect(() => {
    let alive = true;
    let held: JobView | undefined;
    /** Changes heard while `job:status` is asked (applied after its answer, those that follow it). */
    let pending: JobChange[] | undefined;
    const apply = (change: JobChange): boolean => {
      const next = applyJobChange(held, change);
      if (next === 'gap') return false;
      held = next;
      return true;
    };
    const ask = () => {
      pending ??= [];
      sendToBackground('job:status', {}).then(
        (view) => {
          if (!alive) return;
          if (view && (!held || view.revision >= held.revision)) held = view;
          const heard = (pending ?? []).sort((a, b) => a.revision - b.revision);
          pending = undefined;
          // What follows the answer applies; a change still not following it asks again.
          if (!heard.every((change) => apply(change))) ask();
          setShown(held);
        },
        () => {
          pending = undefined;
        },
      );
    };
    const listener = (message: unknown) => {
      const changed = message as Partial<JobChanged>;
      if (!alive || changed?.type !== 'job:changed' || !changed.change) return;
      if (pending) pending.push(changed.change);
      else if (apply(changed.change)) setShown(held);
      else ask();
    };
    browser.runtime.onMessage.addListener(listener);
    ask();
    return () => {
      alive = false;
      browser.runtime.onMessage.removeListener(listener);
    };
  }, []);
  return job;
}

export function CrossSeedPage() {
  const job = useJob();
  const [preview, setPreview] = useState<JobPreview | undefined>();
  const [finding, setFinding] = useState(false);
  const [ticked, setTicked] = useState<Set<number>>(new Set());
  const [status, setStatus] = useState<Status>(IDLE);
  // The index is off: said on open (from the settings), and again by any preview that finds it off.
  const [indexOff, setIndexOff] = useState(false);

  useEffect(() => {
    let alive = true;
    sendToBackground('settings:get', {}).then(
      (view) => alive && view?.settings && !view.settings.clientIndexEnabled && setIndexOff(true),
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, []);

  /** Shows a preview; ticks follow the user's, and a new preview ticks every site that is ready with something to add. */
  const showPreview = (next: JobPreview | undefined, keepTicks: boolean) => {
    if (!next) return;
    setPreview(next);
    setIndexOff(!!next.indexOff);
    setTicked((before) => {
      const present = new Set(next.sites.map((site) => site.sid));
      if (keepTicks) return new Set([...before].filter((sid) => present.has(sid)));
      return new Set(next.sites.filter((site) => site.count > 0 && site.readiness.state === 'ready').map((site) => site.sid));
    });
  };

  const find = async () => {
    setFinding(true);
    setStatus(IDLE);
    try {
      showPreview(await sendToBackground('job:preview', {}), false);
    } catch (error) {
      setStatus(failed(error));
    } finally {
      setFinding(false);
    }
  };

  const turnOnIndex = async () => {
    setStatus({ kind: 'working', text: t('saving') });
    try {
      const answer = await sendToBackground('settings:save', { update: { clientIndexEnabled: true } });
      if (!answer || !('settings' in answer)) {
        setStatus({ kind: 'problem', text: t('fieldRefused', t('fieldClientIndexEnabled')) });
        return;
      }
      setIndexOff(false);
      setStatus({ kind: 'ok', text: t('jobIndexTurnedOn') });
      setFinding(true);
      showPreview(await sendToBackground('job:preview', {}), false);
    } catch (error) {
      setStatus(failed(error));
    } finally {
      setFinding(false);
    }
  };

  const start = async () => {
    const sids = [...ticked];
    if (!sids.length) {
      setStatus({ kind: 'problem', text: t('jobTickOne') });
      return;
    }
    setStatus(IDLE);
    try {
      await sendToBackground('job:start', { sids });
    } catch (error) {
      setStatus(failed(error));
    }
  };

  const command = async (type: 'job:pause' | 'job:resume' | 'job:cancel', clientId?: string) => {
    setStatus(IDLE);
    try {
      await sendToBackground(type, clientId ? { clientId } : {});
    } catch (error) {
      setStatus(failed(error));
    }
  };

  const tryAgain = async (sids: number[]) => {
    setStatus(IDLE);
    try {
      showPreview(await sendToBackground('job:try-again', sids.length ? { sids } : {}), false);
      setStatus({ kind: 'ok', text: t('jobTriedAgain') });
    } catch (error) {
      setStatus(failed(error));
    }
  };

  const siteNames = useMemo(() => {
    const names = new Map<number, string>();
    for (const site of preview?.sites ?? []) names.set(site.sid, site.siteName);
    for (const site of job?.sites ?? []) names.set(site.sid, site.siteName);
    return names;
  }, [preview, job]);
  const siteName = (sid: number) => siteNames.get(sid) ?? `#${sid}`;

  const active = job?.state === 'running' || job?.state === 'paused';
  return (
    <main class="cross-seed-page" aria-labelledby="page-title">
      <h1 id="page-title">{t('crossSeedPageTitle')}</h1>
      <p class="hint">{t('jobIntro')}</p>

      <section class="card" aria-labelledby="preview-heading">
        <div class="section-head">
          <h2 id="preview-heading">{t('jobPreviewHeading')}</h2>
          <button type="button" class="primary" id="job-find" disabled={finding} aria-busy={finding} onClick={() => void find()}>
            {t('jobFind')}
          </button>
        </div>
        <p class="status" role="status" aria-live="polite">
          {finding ? t('jobFinding') : !indexOff && preview && !preview.indexOff && !preview.problem ? t('jobPreviewAt', formatDateTime(preview.at)) : ''}
        </p>
        {indexOff && <IndexOff onTurnOn={() => void turnOnIndex()} />}
        {preview && !preview.indexOff && preview.problem && <PreviewProblem problem={preview.problem} />}
        {preview && !preview.indexOff && !preview.problem && (
          <PreviewTable
            preview={preview}
            ticked={ticked}
            onTick={(sid, on) =>
              setTicked((before) => {
                const next = new Set(before);
                if (on) next.add(sid);
                else next.delete(sid);
                return next;
              })
            }
            onTickAll={(on) => setTicked(on ? new Set(preview.sites.filter((site) => site.count > 0).map((site) => site.sid)) : new Set())}
            onPreview={(next) => showPreview(next, true)}
            onRefresh={() => void find()}
          />
        )}
        {preview && !preview.indexOff && !preview.problem && (
          <div class="buttons">
            <button type="button" class="primary" id="job-start" disabled={active || !ticked.size} onClick={() => void start()}>
              {t('jobStart')}
            </button>
            {!ticked.size && <span class="hint muted">{t('jobTickOne')}</span>}
          </div>
        )}
        <StatusLine status={status} id="job-status" />
      </section>

      {job && job.state !== 'idle' && (
        <JobProgress job={job} siteName={siteName} onCommand={(type, clientId) => void command(type, clientId)} onTryAgain={() => void tryAgain(job.sites.map((site) => site.sid))} />
      )}

      <Switches />
    </main>
  );
}

function IndexOff({ onTurnOn }: { onTurnOn: () => void }) {
  return (
    <div class="notice warn" id="index-off" role="region" aria-labelledby="index-off-title">
      <strong class="notice-title" id="index-off-title">
        {t('jobIndexOffTitle')}
      </strong>
      <p>{t('jobIndexOffWhy')}</p>
      <div class="buttons">
        <button type="button" class="primary" id="turn-on-index" onClick={onTurnOn}>
          {t('jobTurnOnIndex')}
        </button>
      </div>
    </div>
  );
}

const PROBLEM_KEYS: Record<NonNullable<JobPreview['problem']>, MessageKey> = {
  'no-client': 'jobProblemNoClient',
  'no-sites': 'jobProblemNoSites',
  'index-empty': 'jobProblemIndexEmpty',
};

function PreviewProblem({ problem }: { problem: NonNullable<JobPreview['problem']> }) {
  return (
    <div class="notice warn" id="preview-problem" data-problem={problem}>
      <p>{t(PROBLEM_KEYS[problem])}</p>
      <div class="buttons">
        <button type="button" onClick={openOptions}>
          {t('jobOpenOptions')}
        </button>
      </div>
    </div>
  );
}

interface TableProps {
  preview: JobPreview;
  ticked: Set<number>;
  onTick: (sid: number, on: boolean) => void;
  onTickAll: (on: boolean) => void;
  onPreview: (preview: JobPreview | undefined) => void;
  onRefresh: () => void;
}

function PreviewTable({ preview, ticked, onTick, onTickAll, onPreview, onRefresh }: TableProps) {
  const [open, setOpen] = useState<number | undefined>();
  if (!preview.sites.length) return <p id="preview-none">{t('jobPreviewNone')}</p>;
  const chosen = preview.sites.filter((site) => ticked.has(site.sid));
  const count = chosen.reduce((sum, site) => sum + site.count, 0);
  const bytes = chosen.reduce((sum, site) => sum + site.bytes, 0);
  const tickable = preview.sites.filter((site) => site.count > 0);
  const allTicked = tickable.length > 0 && tickable.every((site) => ticked.has(site.sid));
  // Several clients (or a copy going to another client): each site's row says where its finds go too.
  const byClient = (preview.routes?.length ?? 0) > 1 || !!preview.routes?.some((route) => route.sourceId !== route.targetId);
  return (
    <>
      <p class="pace-warning warn-text" id="pace-warning">
        {t('jobPaceWarning')}
      </p>
      <ClientRoutes routes={preview.routes ?? []} refused={preview.refused ?? []} />
      <div class="table-wrap">
        <table class="job-sites" id="job-sites" aria-labelledby="preview-heading">
          <thead>
            <tr>
              <th scope="col">
                <input type="checkbox" id="tick-all" aria-label={t('jobTickAll')} checked={allTicked} disabled={!tickable.length} onChange={(event) => onTickAll((event.currentTarget as HTMLInputElement).checked)} />
              </th>
              <th scope="col">{t('jobColSite')}</th>
              <th scope="col" class="num">{t('jobColCount')}</th>
              <th scope="col" class="num">{t('jobColSize')}</th>
              <th scope="col">{t('jobColReady')}</th>
              <th scope="col">{t('jobColPace')}</th>
              <th scope="col" class="num">{t('jobColUsed')}</th>
            </tr>
          </thead>
          <tbody>
            {preview.sites.map((site) => (
              <SiteRow
                key={site.sid}
                site={site}
                byClient={byClient}
                ticked={ticked.has(site.sid)}
                onTick={(on) => onTick(site.sid, on)}
                onPreview={onPreview}
                onRefresh={onRefresh}
                open={open === site.sid}
                onToggle={() => setOpen(open === site.sid ? undefined : site.sid)}
              />
            ))}
          </tbody>
          <tfoot>
            <tr class="job-total" id="job-total">
              <th scope="row" colSpan={2}>
                {t('jobTotalRow')}
              </th>
              <td class="num total-count">{formatNumber(count)}</td>
              <td class="num total-size">{formatBytes(bytes)}</td>
              <td colSpan={3} class="muted">
                {t('jobTotal', formatNumber(chosen.length))}
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  );
}

/** What each client will do over every site ("NAS → Seedbox: 120"), and the finds a client can send nowhere, in the engine's words. */
function ClientRoutes({ routes, refused }: { routes: JobRoute[]; refused: JobRefused[] }) {
  if (!routes.length && !refused.length) return null;
  return (
    <div class="job-clients" id="job-clients">
      <h3 class="small">{t('jobRoutesHeading')}</h3>
      <ul>
        {routes.map((route) => (
          <li key={`${route.sourceId}>${route.targetId}`} class="job-route" data-source={route.sourceId} data-target={route.targetId}>
            <span class="route-text">{routeText(route.sourceName, route.targetName, route.sourceId === route.targetId, route.count)}</span>
            <span class="muted small route-size"> ({formatBytes(route.bytes)})</span>
          </li>
        ))}
        {refused.map((entry) => (
          <li key={`${entry.clientId}:${entry.kind}`} class="job-refused" data-client={entry.clientId} data-reason={entry.kind}>
            <span class="refused-text">{t('jobRefusedLine', entry.clientName, formatNumber(entry.count))}</span>
            <span class="muted small refused-why"> — {crossSeedText(entry.example, '', 'client').join(' ')}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

interface RowProps {
  site: JobSitePreview;
  /** Say in the row where its finds go (several clients, or copies going to another). */
  byClient: boolean;
  ticked: boolean;
  onTick: (on: boolean) => void;
  onPreview: (preview: JobPreview | undefined) => void;
  onRefresh: () => void;
  open: boolean;
  onToggle: () => void;
}

function SiteRow({ site, byClient, ticked, onTick, onPreview, onRefresh, open, onToggle }: RowProps) {
  const listId = `site-torrents-${site.sid}`;
  return (
    <>
      <tr class="job-site" data-sid={site.sid} data-readiness={site.readiness.state}>
        <td>
          <input type="checkbox" class="tick" id={`tick-${site.sid}`} aria-label={t('jobTickSite', site.siteName)} checked={ticked} disabled={site.count === 0} onChange={(event) => onTick((event.currentTarget as HTMLInputElement).checked)} />
        </td>
        <th scope="row" class="site-name">
          <label for={`tick-${site.sid}`}>{site.siteName}</label>
          {site.count > 0 && (
            <button type="button" class="link-button show-torrents" aria-expanded={open} aria-controls={listId} onClick={onToggle}>
              {open ? t('jobHideTorrents') : t('jobShowTorrents')}
            </button>
          )}
        </th>
        <td class="num count">
          {formatNumber(site.count)}{' '}
          {site.decided > 0 && <span class="small muted decided">{t('jobDecided', formatNumber(site.decided))}</span>}
          {byClient &&
            site.routes?.map((route) => (
              <span key={`${route.sourceId}>${route.targetId}`} class="small muted site-route" data-source={route.sourceId} data-target={route.targetId}>
                {routeText(route.sourceName, route.targetName, route.sourceId === route.targetId, route.count)}
              </span>
            ))}
          {!!site.refused && <span class="small muted site-refused">{t('jobRefusedCount', formatNumber(site.refused))}</span>}
        </td>
        <td class="num size">{formatBytes(site.bytes)}</td>
        <td class="readiness">
          <Readiness site={site} onRefresh={onRefresh} />
        </td>
        <td class="pace">
          <PaceFields site={site} onPreview={onPreview} />
        </td>
        <td class="num used-today">{t('jobUsedToday', formatNumber(site.usedToday), formatNumber(site.perDay))}</td>
      </tr>
      {open && (
        <tr class="site-torrents-row">
          <td colSpan={7}>
            <SiteTorrents site={site} id={listId} byClient={byClient} />
          </td>
        </tr>
      )}
    </>
  );
}

/** Ready, or what is missing with the way to fix it. */
function Readiness({ site, onRefresh }: { site: JobSitePreview; onRefresh: () => void }) {
  const [said, setSaid] = useState<Status>(IDLE);
  const readiness: SiteReadiness = site.readiness;
  switch (readiness.state) {
    case 'ready':
      return <span class="ready">{t('jobReady')}</span>;
    case 'needs-passkey':
    case 'needs-api-key':
      return (
        <span class="missing">
          {t(readiness.state === 'needs-passkey' ? 'jobNeedsPasskey' : 'jobNeedsApiKey')}{' '}
          <button type="button" class="link-button fix" onClick={openOptions}>
            {t('jobFixInOptions')}
          </button>
        </span>
      );
    case 'needs-login': {
      const url = readiness.loginUrl ?? site.homeUrl;
      return (
        <span class="missing">
          {t('jobNeedsLogin')}{' '}
          {url && /^https?:\/\//.test(url) && (
            <a class="fix" href={url} target="_blank" rel="noopener noreferrer">
              {t('jobFixLogin', site.siteName)}
            </a>
          )}
        </span>
      );
    }
    case 'needs-permission': {
      const ask = () => {
        // Asked within the click (browsers refuse a request made after an await).
        let pattern: string;
        try {
          pattern = permissionPattern(readiness.origin);
        } catch {
          return;
        }
        void browser.permissions.request({ origins: [pattern] }).then(
          (granted) => {
            setSaid(granted ? { kind: 'ok', text: t('jobPermissionGranted', readiness.origin) } : { kind: 'problem', text: t('jobPermissionRefused', readiness.origin) });
            if (granted) onRefresh();
          },
          () => setSaid({ kind: 'problem', text: t('jobPermissionRefused', readiness.origin) }),
        );
      };
      return (
        <span class="missing">
          {t('jobNeedsPermission', readiness.origin)}{' '}
          <button type="button" class="link-button fix" onClick={ask}>
            {t('jobFixPermission')}
          </button>
          <StatusLine status={said} />
        </span>
      );
    }
    case 'unsupported':
      return <span class="missing">{t('jobUnsupported', readiness.reason)}</span>;
    case 'unknown':
      // Nothing to add from the site: nothing to tell either (it was not asked).
      return <span class="muted">{site.count ? t('jobUnknown') : '—'}</span>;
  }
}

const whole = (text: string, max: number): number | undefined => (/^\d{1,4}$/.test(text.trim()) && Number(text) <= max ? Number(text) : undefined);

/** "Seconds between downloads" and "Downloads per day", saved with `job:site-pace` when one changes. */
function PaceFields({ site, onPreview }: { site: JobSitePreview; onPreview: (preview: JobPreview | undefined) => void }) {
  const [seconds, setSeconds] = useState(String(site.secondsBetween));
  const [perDay, setPerDay] = useState(String(site.perDay));
  const [said, setSaid] = useState<Status>(IDLE);
  useEffect(() => setSeconds(String(site.secondsBetween)), [site.secondsBetween]);
  useEffect(() => setPerDay(String(site.perDay)), [site.perDay]);
  const secondsValue = whole(seconds, 3600);
  const perDayValue = whole(perDay, 1000);
  // Given the fields' texts as the change event has them (the state may not have caught up yet).
  const save = async (secondsText: string, perDayText: string) => {
    const secondsValue = whole(secondsText, 3600);
    const perDayValue = whole(perDayText, 1000);
    if (secondsValue === undefined || perDayValue === undefined) {
      setSaid({ kind: 'problem', text: t('jobPaceRefused', site.siteName) });
      return;
    }
    if (secondsValue === site.secondsBetween && perDayValue === site.perDay) return;
    setSaid({ kind: 'working', text: t('saving') });
    try {
      const answer = await sendToBackground('job:site-pace', { sid: site.sid, secondsBetween: secondsValue, perDay: perDayValue });
      if (!answer) throw new Error(t('jobPaceRefused', site.siteName));
      setSaid({ kind: 'ok', text: t('jobPaceSaved', site.siteName) });
      onPreview(answer);
    } catch {
      setSaid({ kind: 'problem', text: t('jobPaceRefused', site.siteName) });
    }
  };
  const id = (name: string) => `${name}-${site.sid}`;
  return (
    <div class="pace-fields">
      <label for={id('seconds')}>{t('jobSecondsBetween')}</label>
      <input
        type="number"
        inputMode="numeric"
        id={id('seconds')}
        class="seconds-between"
        min={0}
        max={3600}
        step={1}
        value={seconds}
        aria-invalid={secondsValue === undefined}
        aria-describedby="pace-warning"
        onInput={(event) => setSeconds((event.currentTarget as HTMLInputElement).value)}
        onChange={(event) => {
          const value = (event.currentTarget as HTMLInputElement).value;
          setSeconds(value);
          void save(value, perDay);
        }}
      />
      <label for={id('per-day')}>{t('jobPerDay')}</label>
      <input
        type="number"
        inputMode="numeric"
        id={id('per-day')}
        class="per-day"
        min={0}
        max={1000}
        step={1}
        value={perDay}
        aria-invalid={perDayValue === undefined}
        aria-describedby="pace-warning"
        onInput={(event) => setPerDay((event.currentTarget as HTMLInputElement).value)}
        onChange={(event) => {
          const value = (event.currentTarget as HTMLInputElement).value;
          setPerDay(value);
          void save(seconds, value);
        }}
      />
      <StatusLine status={said} />
    </div>
  );
}

/** One site's torrents of the preview, a page at a time, each linking to its details page. */
function SiteTorrents({ site, id, byClient }: { site: JobSitePreview; id: string; byClient: boolean }) {
  const names = new Map((site.routes ?? []).flatMap((route) => [[route.sourceId, route.sourceName] as const, [route.targetId, route.targetName] as const]));
  const [torrents, setTorrents] = useState<JobTorrent[]>([]);
  const [total, setTotal] = useState<number | undefined>();
  const [said, setSaid] = useState<Status>(IDLE);
  const load = async (offset: number) => {
    try {
      const answer = await sendToBackground('job:site-torrents', { sid: site.sid, offset, limit: TORRENTS_PAGE });
      setTorrents((before) => (offset ? [...before, ...answer.torrents] : answer.torrents));
      setTotal(answer.total);
    } catch (error) {
      setSaid(failed(error));
    }
  };
  useEffect(() => {
    void load(0);
  }, [site.sid]);
  return (
    <div class="site-torrents" id={id} aria-busy={total === undefined} aria-label={t('jobTorrentsOf', site.siteName)}>
      <ul class="torrent-list">
        {torrents.map((torrent) => (
          <li key={`${torrent.torrentId}-${torrent.infoHash}`}>
            <TorrentLink torrent={torrent} />
            {foundByPieces(torrent) && <FoundByTag by={torrent.foundBy!} />}
            {byClient && torrent.sourceClientId && (
              <span class="muted small torrent-client" data-source={torrent.sourceClientId} data-target={torrent.targetClientId}>
                {' '}
                {outcomeClientText(names.get(torrent.sourceClientId), names.get(torrent.targetClientId ?? torrent.sourceClientId))}
              </span>
            )}
            <span class="muted small"> {formatBytes(torrent.bytes)}</span>
          </li>
        ))}
      </ul>
      {total !== undefined && (
        <p class="small muted torrents-shown" aria-live="polite">
          {t('jobTorrentsShown', formatNumber(torrents.length), formatNumber(total))}{' '}
          {torrents.length < total && (
            <button type="button" class="link-button more-torrents" onClick={() => void load(torrents.length)}>
              {t('jobMoreTorrents')}
            </button>
          )}
        </p>
      )}
      <StatusLine status={said} />
    </div>
  );
}

/** A find a site asked by pieces hash named (alone or with IYUU) says so; IYUU's alone are as before. */
function foundByPieces(torrent: JobTorrent): boolean {
  return torrent.foundBy === 'pieces' || torrent.foundBy === 'both';
}

function TorrentLink({ torrent }: { torrent: JobTorrent }) {
  const name = torrent.name || `#${torrent.torrentId}`;
  if (!torrent.detailsUrl || !/^https?:\/\//.test(torrent.detailsUrl)) return <span class="torrent-name">{name}</span>;
  return (
    <a class="torrent-name" href={torrent.detailsUrl} target="_blank" rel="noopener noreferrer">
      {name}
    </a>
  );
}

const SITE_STATE_KEYS: Record<JobSiteState, MessageKey> = {
  waiting: 'jobSiteWaiting',
  running: 'jobSiteRunning',
  done: 'jobSiteDone',
  stopped: 'jobSiteStopped',
  capped: 'jobSiteCapped',
};

const JOB_STATE_KEYS: Record<Exclude<JobView['state'], 'idle'>, MessageKey> = {
  running: 'jobStateRunning',
  paused: 'jobStatePaused',
  done: 'jobStateDone',
  cancelled: 'jobStateCancelled',
};

interface ProgressProps {
  job: JobView;
  siteName: (sid: number) => string;
  /** A command; `clientId` with "Resume": that client's torrents only. */
  onCommand: (type: 'job:pause' | 'job:resume' | 'job:cancel', clientId?: string) => void;
  onTryAgain: () => void;
}

function JobProgress({ job, siteName, onCommand, onTryAgain }: ProgressProps) {
  const state = job.state as Exclude<JobView['state'], 'idle'>;
  const active = state === 'running' || state === 'paused';
  // Sites run in parallel: the job ends with its slowest site.
  const msLeft = Math.max(0, ...job.sites.filter((site) => site.state === 'running' || site.state === 'waiting').map((site) => site.msLeft));
  // Clients whose torrents wait: each named with its own "Resume" (the job's "Resume" resumes them all).
  const paused = (job.clients ?? []).filter((client) => client.paused);
  return (
    <>
      <section class="card" id="job-progress" aria-labelledby="progress-heading" data-state={state}>
        <div class="section-head">
          <h2 id="progress-heading">{t('jobProgressHeading')}</h2>
          <div class="buttons">
            {state === 'running' && (
              <button type="button" id="job-pause" onClick={() => onCommand('job:pause')}>
                {t('jobPause')}
              </button>
            )}
            {state === 'paused' && (
              <button type="button" class="primary" id="job-resume" onClick={() => onCommand('job:resume')}>
                {t('jobResume')}
              </button>
            )}
            {active && (
              <button type="button" id="job-cancel" onClick={() => onCommand('job:cancel')}>
                {t('jobCancel')}
              </button>
            )}
          </div>
        </div>
        {/* Also once cancelled or done: a torrent at its check in a paused client is finished only once it is resumed. */}
        {paused.length > 0 && (
          <ul class="paused-clients" id="paused-clients">
            {paused.map((client) => (
              <PausedClient key={client.id} client={client} onResume={() => onCommand('job:resume', client.id)} />
            ))}
          </ul>
        )}
        {job.pausedBecause && state === 'paused' && (job.pausedBecause.kind === 'restart' || !paused.length) && (
          <p class="notice warn paused-because" role="alert" data-kind={job.pausedBecause.kind}>
            {job.pausedBecause.kind === 'restart'
              ? t('jobPausedRestart')
              : job.pausedBecause.kind === 'sources-missing'
                ? t('jobPausedSourcesMissing')
                : t('jobPausedClient', clientProblemText(job.pausedBecause.problem))}
          </p>
        )}
        <div class="overall" role="status" aria-live="polite">
          <progress max={Math.max(job.total, 1)} value={job.done} aria-label={t('jobProgressLabel')} />
          <span class="overall-text">
            <strong>{t(JOB_STATE_KEYS[state])}</strong> {t('jobProgress', formatNumber(job.done), formatNumber(job.total))}
            {state === 'running' && msLeft > 0 && <span class="muted time-left"> · {timeLeftText(msLeft)}</span>}
          </span>
        </div>
        <ul class="job-site-progress">
          {job.sites.map((site) => (
            <SiteProgress key={site.sid} site={site} />
          ))}
        </ul>
      </section>
      <Report job={job} siteName={siteName} onTryAgain={onTryAgain} active={active} />
    </>
  );
}

/** "NAS is not answering: its torrents wait." (or lists none of its sources), why, and "Resume NAS". */
function PausedClient({ client, onResume }: { client: JobClientView; onResume: () => void }) {
  const pause = client.paused!;
  return (
    <li class="notice warn client-paused" role="alert" data-client-id={client.id} data-kind={pause.kind}>
      <span class="client-paused-text">{pause.kind === 'client' ? t('jobClientPaused', client.name) : t('jobClientSourcesMissing', client.name)}</span>
      {pause.kind === 'client' && <span class="client-paused-detail muted"> ({clientProblemText(pause.problem)})</span>} <span class="client-paused-hint">{t('jobClientPausedHint')}</span>{' '}
      <button type="button" class="resume-client" onClick={onResume}>
        {t('jobResumeClient', client.name)}
      </button>
    </li>
  );
}

function SiteProgress({ site }: { site: JobSiteView }) {
  const problem = site.problem ? crossSeedText(site.problem, site.siteName) : [];
  const open = site.openUrl && /^https?:\/\//.test(site.openUrl) ? site.openUrl : undefined;
  return (
    <li class="site-progress" data-sid={site.sid} data-state={site.state}>
      <span class="site-name">{site.siteName}</span>
      <progress max={Math.max(site.total, 1)} value={site.done} aria-label={t('jobSiteProgressLabel', site.siteName)} />
      <span class="site-progress-text">
        {t('jobProgress', formatNumber(site.done), formatNumber(site.total))} · {t(SITE_STATE_KEYS[site.state])}
        {(site.state === 'running' || site.state === 'waiting') && site.msLeft > 0 && <span class="muted"> · {timeLeftText(site.msLeft)}</span>}
      </span>
      {(problem.length > 0 || (site.state === 'stopped' && open)) && (
        <p class="site-problem">
          {problem.map((line, index) => (
            <span key={index} class="problem-line">
              {line}{' '}
            </span>
          ))}
          {open && (
            <a href={open} target="_blank" rel="noopener noreferrer" class="open-site">
              {t('jobOpenSite', site.siteName)}
            </a>
          )}
        </p>
      )}
    </li>
  );
}

/** Rows shown per group before "Show all" (a 10,000-torrent job's report stays quick to render; "Copy report" has them all). */
const GROUP_ROWS = 100;

function Report({ job, siteName, onTryAgain, active }: { job: JobView; siteName: (sid: number) => string; onTryAgain: () => void; active: boolean }) {
  const groups = useMemo(() => groupOutcomes(job.outcomes), [job.outcomes]);
  const clientNames = useMemo(() => new Map((job.clients ?? []).map((client) => [client.id, client.name])), [job.clients]);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  return (
    <section class="card" id="job-report" aria-labelledby="report-heading">
      <div class="section-head">
        <h2 id="report-heading">{t('jobReportHeading')}</h2>
        <div class="buttons">
          {job.outcomes.length > 0 && <CopyButton label={t('jobCopyReport')} text={reportText(job, siteName)} />}
          {!active && (
            <button type="button" id="job-try-again" aria-describedby="try-again-hint" onClick={onTryAgain}>
              {t('jobTryAgain')}
            </button>
          )}
        </div>
      </div>
      {!active && (
        <p class="hint" id="try-again-hint">
          {t('jobTryAgainHint')}
        </p>
      )}
      {!job.outcomes.length && <p class="muted">{t('jobReportEmpty')}</p>}
      {GROUPS.map(({ group, key }) => {
        const list = groups.get(group);
        if (!list?.length) return null;
        const headingId = `group-${group}`;
        return (
          <div class="report-group" key={group} data-group={group}>
            <h3 id={headingId}>
              {t(key)} <span class="muted">({formatNumber(list.length)})</span>
            </h3>
            <ul aria-labelledby={headingId}>
              {(expanded.has(group) ? list : list.slice(0, GROUP_ROWS)).map((outcome) => {
                const site = siteName(outcome.sid);
                const lines = outcomeLines(outcome, site);
                const disk = onDiskText(outcome);
                return (
                  <li key={`${outcome.sid}-${outcome.torrentId}-${outcome.infoHash}`} class="outcome" data-client-id={outcome.targetClientId}>
                    <span class="outcome-site">{site}</span> <TorrentLink torrent={outcome} />
                    <OutcomeClient outcome={outcome} names={clientNames} />
                    {foundByPieces(outcome) && <FoundByTag by={outcome.foundBy!} />}
                    {disk && <span class="on-disk muted"> · {disk}</span>}
                    {lines.length > 0 && <span class="outcome-words small muted"> — {lines[0]}</span>}
                    {lines.length > 1 && (
                      <ul class="outcome-details small muted">
                        {lines.slice(1).map((line, index) => (
                          <li key={index}>{line}</li>
                        ))}
                      </ul>
                    )}
                  </li>
                );
              })}
            </ul>
            {list.length > GROUP_ROWS && !expanded.has(group) && (
              <button type="button" class="link-button show-all" onClick={() => setExpanded(new Set([...expanded, group]))}>
                {t('jobShowAll', formatNumber(list.length))}
              </button>
            )}
          </div>
        );
      })}
    </section>
  );
}

/** The client of an outcome whose words name none (an added one says "Added to NAS" itself): "NAS", or "NAS → Seedbox". */
function OutcomeClient({ outcome, names }: { outcome: JobOutcome; names: ReadonlyMap<string, string> }) {
  const text = outcomeClientText(names.get(outcome.sourceClientId ?? ''), names.get(outcome.targetClientId ?? outcome.sourceClientId ?? ''), outcome);
  return text ? <span class="outcome-client muted small"> · {text}</span> : null;
}

/** "Tell me when there is something new to cross-seed" and new finds starting by themselves. */
function Switches() {
  const [switches, setSwitches] = useState<JobSwitches | undefined>();
  const [said, setSaid] = useState<Status>(IDLE);
  useEffect(() => {
    let alive = true;
    sendToBackground('job:switches', {}).then(
      (answer) => alive && answer && setSwitches(answer),
      () => alive && setSwitches({ notifyNewFinds: false, autoStartNewFinds: false }),
    );
    return () => {
      alive = false;
    };
  }, []);
  const save = async (change: Partial<JobSwitches>) => {
    setSaid({ kind: 'working', text: t('saving') });
    try {
      const answer = await sendToBackground('job:switches', change);
      if (!answer) throw new Error('no answer');
      setSwitches(answer);
      setSaid({ kind: 'ok', text: t('saved') });
    } catch {
      setSaid({ kind: 'problem', text: t('jobSwitchRefused') });
    }
  };
  const shown = switches ?? { notifyNewFinds: false, autoStartNewFinds: false };
  return (
    <section class="card" id="job-switches" aria-labelledby="switches-heading" aria-busy={!switches}>
      <h2 id="switches-heading">{t('jobSwitchesHeading')}</h2>
      <CheckWithHint
        id="notify-new-finds"
        checked={shown.notifyNewFinds}
        disabled={!switches}
        onChange={(checked) => void save({ notifyNewFinds: checked })}
        label={t('jobNotifySwitch')}
        hint={t('jobNotifyHint')}
      />
      <CheckWithHint
        id="auto-start-new-finds"
        checked={shown.autoStartNewFinds}
        disabled={!switches}
        warn
        onChange={(checked) => void save({ autoStartNewFinds: checked })}
        label={t('jobAutoSwitch')}
        hint={t('jobAutoHint')}
      />
      <StatusLine status={said} />
    </section>
  );
}
