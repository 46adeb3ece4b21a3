/**
 * The popup's "Cross-seed" (one per candidate the client does not hold) and "Cross-seed all" (the
 * candidates on the user's sites), with their outcomes in words. Popup only: the page's panel has
 * its own button (Panel.tsx), which says nothing of the client.
 *
 * A site the browser has not granted is asked for within the click itself (a permission prompt
 * needs the user's gesture, which an answer from the background would come too late for), then the
 * cross-seed runs; the same for a site the background later names as not granted.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { crossSeedText } from '../../../utils/cross-seed-engine/result-text';
import { formatNumber, t } from '../../../utils/i18n';
import type { CandidateView, TabView } from '../../lookup/lookup.messages';
import type { CrossSeedItem, CrossSeedsChanged, TabCrossSeeds } from '../cross-seed.messages';
import { originAllowed, permissionPattern } from '../../../utils/permission-pattern';
import { sendToBackground } from '../../send-to-background';


import { originOf } from '../../../utils/url';
function keyOf(candidate: Pick<CandidateView, 'forHash' | 'sid' | 'torrentId' | 'infoHash'>): string {
  return `${candidate.forHash}:${candidate.sid}:${candidate.torrentId}:${candidate.infoHash}`;
}

/** The page's candidates' sites the browser has not granted (asked once per page, so a click can ask for them at once). */
function useMissingOrigins(candidates: readonly CandidateView[]): ReadonlySet<string> {
  const origins = useMemo(() => [...new Set(candidates.flatMap((candidate) => originOf(candidate.detailsUrl) ?? []))].sort(), [candidates]);
  const key = origins.join(' ');
  const [missing, setMissing] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    let alive = true;
    void Promise.all(
      origins.map(async (origin) => ((await originAllowed(origin)) ? [] : [origin])),
    ).then((lists) => {
      if (alive) setMissing(new Set(lists.flat()));
    });
    return () => {
      alive = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the origins themselves
  }, [key]);
  return missing;
}

export interface PopupCrossSeeds {
  state: TabCrossSeeds | undefined;
  itemOf(candidate: CandidateView): CrossSeedItem | undefined;
  /** Clicked, or running in the background. */
  busy(candidate: CandidateView): boolean;
  /** The user refused the browser's prompt for this candidate's site. */
  refused(candidate: CandidateView): boolean;
  crossSeed(candidate: CandidateView, askFor?: string): void;
  crossSeedAll(candidates: readonly CandidateView[]): void;
  allBusy: boolean;
  /** How many were added so far on this page (the popup asks the client again when it grows). */
  added: number;
}

/** This tab's cross-seeds: asked once, then kept current from the background's announcements. */
export function useCrossSeeds(tabId: number, view: TabView | undefined): PopupCrossSeeds {
  const [state, setState] = useState<TabCrossSeeds | undefined>();
  const [clicked, setClicked] = useState<ReadonlySet<string>>(new Set());
  const [refusedKeys, setRefused] = useState<ReadonlySet<string>>(new Set());
  const [allClicked, setAllClicked] = useState(false);
  const missing = useMissingOrigins(view?.candidates ?? []);
  const url = view?.url;

  useEffect(() => {
    let alive = true;
    setState(undefined);
    void sendToBackground('crossseed:get', { tabId }).then((answer) => {
      if (alive && answer) setState((known) => known ?? answer);
    });
    const listener = (message: unknown) => {
      const changed = message as Partial<CrossSeedsChanged>;
      if (changed?.type === 'crossseed:changed' && changed.crossSeeds?.tabId === tabId) setState(changed.crossSeeds);
    };
    browser.runtime.onMessage.addListener(listener);
    return () => {
      alive = false;
      browser.runtime.onMessage.removeListener(listener);
    };
  }, [tabId, url]);

  const items = useMemo(() => new Map((state?.url === url ? state?.items : [])?.map((item) => [keyOf(item), item])), [state, url]);
  const mark = (set: ReadonlySet<string>, key: string, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(key);
    else next.delete(key);
    return next;
  };

  /** Asks for `origins` within the click (only those not granted), then runs `go` if they were granted. */
  const withPermission = (origins: string[], go: () => void, refused: () => void) => {
    if (!origins.length) return go();
    void browser.permissions
      .request({ origins: origins.map(permissionPattern) })
      .then((granted) => (granted ? go() : refused()))
      .catch(refused);
  };

  const crossSeed = (candidate: CandidateView, askFor?: string) => {
    const key = keyOf(candidate);
    const origin = askFor ?? originOf(candidate.detailsUrl);
    const ask = origin && (askFor || missing.has(origin)) ? [origin] : [];
    setRefused((set) => mark(set, key, false));
    setClicked((set) => mark(set, key, true));
    withPermission(
      ask,
      () => {
        void sendToBackground('crossseed:one', { tabId, sid: candidate.sid, torrentId: candidate.torrentId, infoHash: candidate.infoHash })
          .finally(() => setClicked((set) => mark(set, key, false)));
      },
      () => {
        setClicked((set) => mark(set, key, false));
        setRefused((set) => mark(set, key, true));
      },
    );
  };

  const crossSeedAll = (candidates: readonly CandidateView[]) => {
    setAllClicked(true);
    const ask = [...new Set(candidates.flatMap((candidate) => originOf(candidate.detailsUrl) ?? []))].filter((origin) => missing.has(origin));
    const go = () => {
      void sendToBackground('crossseed:all', { tabId })
        .finally(() => setAllClicked(false));
    };
    // Refused: the run still goes, and those sites say they need the permission.
    withPermission(ask, go, go);
  };

  const added = [...items.values()].filter((item) => item.result?.kind === 'added').length;
  return {
    state,
    itemOf: (candidate) => items.get(keyOf(candidate)),
    busy: (candidate) => clicked.has(keyOf(candidate)) || items.get(keyOf(candidate))?.state === 'running',
    refused: (candidate) => refusedKeys.has(keyOf(candidate)),
    crossSeed,
    crossSeedAll,
    allBusy: allClicked || state?.all?.state === 'running',
    added,
  };
}

/** The outcome of one cross-seed in words: the sentence, and for different files the first differences. */
export function Outcome({ item, onAllow }: { item: CrossSeedItem; onAllow: (origin: string) => void }) {
  if (item.state === 'running' || !item.result) {
    return (
      <div class="cross-seed-outcome running" role="status">
        {t('crossSeedWorking')}
      </div>
    );
  }
  const { result } = item;
  const [sentence, ...details] = crossSeedText(result, item.siteName);
  const ok = result.kind === 'added' || result.kind === 'already-in-client';
  return (
    <div class={`cross-seed-outcome ${ok ? 'ok' : 'problem'}`} data-kind={result.kind} role={ok ? 'status' : 'alert'}>
      <p class="cross-seed-sentence">{sentence}</p>
      {details.length > 0 && (
        <ul class="cross-seed-differences">
          {details.map((line, index) => (
            <li key={index}>{line}</li>
          ))}
        </ul>
      )}
      {result.kind === 'no-permission' && result.for === 'site' && (
        <button type="button" class="link-button allow-site" onClick={() => onAllow(result.origin)}>
          {t('crossSeedAllowSite', item.siteName)}
        </button>
      )}
    </div>
  );
}

/**
 * One candidate's "Cross-seed" (when the client does not hold it) and its outcome. `inClient` is
 * undefined until the client answered: the button waits for it, so it never shows for a candidate
 * the client turns out to hold.
 */
export function CandidateCrossSeed({ candidate, crossSeeds, inClient }: { candidate: CandidateView; crossSeeds: PopupCrossSeeds; inClient: ReadonlyMap<string, string> | undefined }) {
  const item = crossSeeds.itemOf(candidate);
  const busy = crossSeeds.busy(candidate);
  const showButton = inClient !== undefined && !inClient.has(candidate.infoHash);
  return (
    <>
      {showButton && (
        <button
          type="button"
          class={`cross-seed${busy ? ' busy' : ''}`}
          disabled={busy}
          aria-busy={busy}
          title={t('crossSeedButtonTitle', candidate.siteName, String(candidate.torrentId))}
          onClick={() => crossSeeds.crossSeed(candidate)}
        >
          {t('crossSeedButton')}
        </button>
      )}
      {item ? (
        <Outcome item={busy ? { ...item, state: 'running' } : item} onAllow={(origin) => crossSeeds.crossSeed(candidate, origin)} />
      ) : busy ? (
        <div class="cross-seed-outcome running" role="status">
          {t('crossSeedWorking')}
        </div>
      ) : null}
      {crossSeeds.refused(candidate) && (
        <p class="cross-seed-outcome problem" role="alert">
          {t('crossSeedPermissionRefused', candidate.siteName)}
        </p>
      )}
    </>
  );
}

/** How "Cross-seed all" went (or goes), in one or two sentences. */
function allText(state: TabCrossSeeds): string[] {
  const all = state.all;
  if (!all) return [];
  if (all.state === 'running') return [all.total === undefined || all.total === 0 ? t('crossSeedWorking') : t('crossSeedAllProgress', formatNumber(Math.min(all.done + 1, all.total)), formatNumber(all.total))];
  if (!all.sitesChosen) return [t('crossSeedAllNotChosen')];
  const lines: string[] = [];
  if (all.stopped) lines.push(...crossSeedText(all.stopped, ''));
  else if (!all.total) lines.push(all.alreadyInClient > 0 ? t('crossSeedAllNone') : t('crossSeedAllNoneOnYourSites'));
  if (all.total) lines.push(t('crossSeedAllDone', formatNumber(all.added), formatNumber(all.done - all.added)));
  if (all.overLimit > 0) lines.push(t('crossSeedAllOverLimit', formatNumber(all.limit), formatNumber(all.overLimit)));
  return lines;
}

/**
 * "Cross-seed all": shown while any candidate on the user's sites (or on any site, before they chose
 * theirs) is not in the client; its progress ("Cross-seeding 3 of 7…") and how it ended.
 */
export function CrossSeedAll({ candidates, crossSeeds, inClient }: { candidates: readonly CandidateView[]; crossSeeds: PopupCrossSeeds; inClient: ReadonlyMap<string, string> | undefined }) {
  const state = crossSeeds.state;
  const lines = state ? allText(state) : [];
  const wanted = inClient ? candidates.filter((candidate) => candidate.held !== false && !inClient.has(candidate.infoHash)) : [];
  if (!wanted.length && !lines.length) return null;
  const busy = crossSeeds.allBusy;
  return (
    <div class="cross-seed-all">
      {wanted.length > 0 && (
        <button type="button" class={`primary cross-seed-all-button${busy ? ' busy' : ''}`} disabled={busy} aria-busy={busy} onClick={() => crossSeeds.crossSeedAll(wanted)}>
          {t('crossSeedAllButton')}
        </button>
      )}
      {lines.length > 0 && (
        <p class={`cross-seed-all-status${state?.all?.stopped ? ' problem' : ''}`} role="status">
          {lines.join(' ')}
        </p>
      )}
    </div>
  );
}
