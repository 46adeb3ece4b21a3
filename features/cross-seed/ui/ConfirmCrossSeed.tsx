/**
 * The confirmation the page's panel opens for its "Cross-seed" (issue 15), in a popup window of
 * the extension's own (features/cross-seed/confirm-windows.ts): a page can move, hide or cover its
 * panel, but not this window. It names the torrent, the site it comes from and the client it goes
 * to; only its own "Cross-seed" cross-seeds, through the popup's path (useCrossSeeds: the same
 * `crossseed:one`, de-duplication, pace and per-tab record), and the outcome is shown here.
 *
 * The button arms itself a moment after the window shows, and again after the user comes back to
 * it: a click the user aimed at the page (a page asking for a double click) must not land on it as
 * the window opens or comes to the front.
 */
import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { t } from '../../../utils/i18n';
import type { CandidateView, TabView, ViewChanged } from '../../lookup/lookup.messages';
import { sendToBackground } from '../../send-to-background';
import { crossSeedText } from '../../../utils/cross-seed-engine/result-text';
import { Outcome, useCrossSeeds } from './PopupCrossSeed';
import { useClientStatus } from '../../clients/ui/InYourClient';
import { LogoIcon } from '../../../components/icons';

/** How long the button waits after the window shows or takes focus before it takes a click. */
export const ARM_DELAY_MS = 600;

export interface ConfirmProps {
  tabId: number;
  sid: number;
  torrentId: number;
  /** Closes the window (window.close() in the extension page). */
  onClose: () => void;
}

/** The candidate the panel named, if the tab's page still shows it (and it answers one of the page's hashes). */
function candidateIn(view: TabView | undefined, sid: number, torrentId: number): CandidateView | undefined {
  const hashes = new Set(view?.hashes.map((found) => found.hash));
  return view?.candidates.find((candidate) => candidate.sid === sid && candidate.torrentId === torrentId && hashes.has(candidate.forHash));
}

/**
 * False until ARM_DELAY_MS after mounting, and from the moment the window loses focus until
 * ARM_DELAY_MS after it has it back (the user went to the page meanwhile).
 */
function useArmed(): boolean {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    let timer = setTimeout(() => setArmed(true), ARM_DELAY_MS);
    let away = false;
    const onBlur = () => {
      away = true;
      clearTimeout(timer);
      setArmed(false);
    };
    const onFocus = () => {
      if (!away) return;
      away = false;
      clearTimeout(timer);
      timer = setTimeout(() => setArmed(true), ARM_DELAY_MS);
    };
    addEventListener('blur', onBlur);
    addEventListener('focus', onFocus);
    return () => {
      clearTimeout(timer);
      removeEventListener('blur', onBlur);
      removeEventListener('focus', onFocus);
    };
  }, []);
  return armed;
}

export function ConfirmCrossSeed({ tabId, sid, torrentId, onClose }: ConfirmProps) {
  const [view, setView] = useState<TabView | undefined>();
  const armed = useArmed();

  useEffect(() => {
    let alive = true;
    void sendToBackground('view:get', { tabId }).then((answer) => {
      if (alive && answer) setView(answer);
    });
    const listener = (message: unknown) => {
      const changed = message as Partial<ViewChanged>;
      if (changed?.type === 'view:changed' && changed.view?.tabId === tabId) setView(changed.view);
    };
    browser.runtime.onMessage.addListener(listener);
    return () => {
      alive = false;
      browser.runtime.onMessage.removeListener(listener);
    };
  }, [tabId]);

  const candidate = candidateIn(view, sid, torrentId);
  const status = useClientStatus(tabId, view);
  const crossSeeds = useCrossSeeds(tabId, view);
  if (!view) return <main class="confirm" aria-busy="true" />;

  const pageHash = candidate?.forHash;
  // The client the copy goes into (placement.ts: the first holding the source complete, or its "Copies go to"), or why none.
  const copy = pageHash && status?.state === 'answered' ? status.copies?.[pageHash] : undefined;
  const client = copy ? ('into' in copy ? t('confirmIntoClient', copy.into, copy.savePath) : crossSeedText(copy.refused, candidate?.siteName ?? '').join(' ')) : status?.state === 'answered' ? t('confirmNoSource') : undefined;
  const held = pageHash && status?.state === 'answered' ? status.clients.flatMap((answer) => (answer.state === 'answered' && answer.held[pageHash] ? [answer.held[pageHash]!] : []))[0] : undefined;
  const torrentName = held?.name ?? view.hashes.find((found) => found.hash === pageHash)?.title ?? pageHash;
  const item = candidate && crossSeeds.itemOf(candidate);
  const busy = !!candidate && crossSeeds.busy(candidate);
  const done = item?.state === 'done' && (item.result?.kind === 'added' || item.result?.kind === 'already-in-client');

  return (
    <main class="confirm">
      <h1>
        <LogoIcon /> {t('confirmTitle')}
      </h1>
      {!candidate ? (
        <p class="notice warn confirm-gone">{t('confirmGone')}</p>
      ) : (
        <>
          <dl class="confirm-facts">
            <dt>{t('confirmTorrent')}</dt>
            <dd class="confirm-torrent">{torrentName}</dd>
            <dt>{t('confirmFrom')}</dt>
            <dd class="confirm-site">{t('confirmFromSite', candidate.siteName, String(candidate.torrentId))}</dd>
            <dt>{t('confirmInto')}</dt>
            <dd class="confirm-client">{client ?? (status?.state === 'no-client' ? t('confirmNoClient') : '…')}</dd>
          </dl>
          <p class="muted small">{t('confirmWhy', candidate.siteName)}</p>
        </>
      )}
      <div class="actions">
        {candidate && !done && (
          <button
            type="button"
            id="confirm-cross-seed"
            class={`primary cross-seed${busy ? ' busy' : ''}`}
            disabled={!armed || busy}
            aria-busy={busy}
            onClick={() => crossSeeds.crossSeed(candidate)}
          >
            {t('crossSeedButton')}
          </button>
        )}
        <button type="button" id="confirm-close" onClick={onClose}>
          {t('confirmClose')}
        </button>
      </div>
      {candidate && !item && busy && (
        <div class="cross-seed-outcome running" role="status">
          {t('crossSeedWorking')}
        </div>
      )}
      {candidate && item && <Outcome item={busy ? { ...item, state: 'running' } : item} onAllow={(origin) => crossSeeds.crossSeed(candidate, origin)} />}
      {candidate && crossSeeds.refused(candidate) && (
        <p class="cross-seed-outcome problem" role="alert">
          {t('crossSeedPermissionRefused', candidate.siteName)}
        </p>
      )}
    </main>
  );
}
