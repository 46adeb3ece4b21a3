/**
 * The popup's word on the user's torrent clients: which of them already hold this page's torrent
 * ("In your client", one line per client: its Name, the torrent's state and save path), which
 * could not be asked or are slow, and where a copy of it goes. Popup only: a tracker page's scripts
 * could measure anything in the in-page panel.
 */
import { useEffect, useState } from 'preact/hooks';
import { formatNumber, t } from '../../../utils/i18n';
import type { ClientAnswer, ClientStatus, HeldTorrent } from '../clients.messages';
import type { TabView } from '../../lookup/lookup.messages';
import { sendToBackground } from '../../send-to-background';
import { clientProblemText, clientSaidText, torrentStateText } from './client-text';
import { crossSeedText } from '../../../utils/cross-seed-engine/result-text';

/** The hashes a status answers for: the page's, then its candidates' (a change asks the clients again). */
function askedKey(view: TabView | undefined): string {
  if (!view?.hashes.length) return '';
  return `${view.hashes.map((found) => found.hash).join(',')}|${view.candidates.map((candidate) => candidate.infoHash).join(',')}`;
}

/**
 * Asks the background what every client holds for this tab, again whenever the page's hashes or
 * its candidates change, or `again` does (a cross-seed added a torrent). A client slow to answer is
 * shown as such at once, and asked again (`wait`) so its answer replaces that when it comes. The
 * last answer stays shown while the next one is on its way.
 */
export function useClientStatus(tabId: number, view: TabView | undefined, again = 0): ClientStatus | undefined {
  const [status, setStatus] = useState<ClientStatus | undefined>();
  const key = askedKey(view);
  useEffect(() => {
    if (!key) {
      setStatus(undefined);
      return;
    }
    let alive = true;
    void sendToBackground('client:status', { tabId }).then((answer) => {
      if (!alive || !answer) return;
      setStatus(answer);
      if (answer.state === 'answered' && answer.clients.some((client) => client.state === 'slow')) {
        void sendToBackground('client:status', { tabId, wait: true }).then((waited) => {
          if (alive && waited) setStatus(waited);
        });
      }
    });
    return () => {
      alive = false;
    };
  }, [tabId, key, again]);
  return status;
}

/** The info-hashes any client holds, each with the Name of the first (in the user's order) that does: for marking candidates. */
export function heldHashes(status: ClientStatus | undefined): ReadonlyMap<string, string> | undefined {
  if (status?.state !== 'answered') return undefined;
  const held = new Map<string, string>();
  for (const answer of status.clients) {
    if (answer.state !== 'answered') continue;
    for (const hash of Object.keys(answer.held)) if (!held.has(hash)) held.set(hash, answer.client.name);
  }
  return held;
}

/** Each client holding `hash`, with its torrent, in the user's order. */
function holdersOf(status: Extract<ClientStatus, { state: 'answered' }>, hash: string): { name: string; torrent: HeldTorrent }[] {
  return status.clients.flatMap((answer) => (answer.state === 'answered' && answer.held[hash] ? [{ name: answer.client.name, torrent: answer.held[hash]! }] : []));
}

/** "NAS: seeding, /data/music" */
function HeldLine({ name, torrent }: { name: string; torrent: HeldTorrent }) {
  return (
    <li class="client-held-line">
      <strong class="client-name">{name}</strong>: <span class="client-state">{torrentStateText(torrent.state, torrent.progress)}</span>, <code class="client-path">{torrent.savePath}</code>
    </li>
  );
}

/** A client that could not be asked (named, with why) or has not answered yet. */
function UnansweredLine({ answer }: { answer: Exclude<ClientAnswer, { state: 'answered' }> }) {
  if (answer.state === 'slow') {
    return (
      <li class="client-unanswered slow" data-client={answer.client.name}>
        {t('clientSlow', answer.client.name)}
      </li>
    );
  }
  const said = clientSaidText(answer.problem);
  return (
    <li class="client-unanswered problem" data-client={answer.client.name} data-kind={answer.problem.kind}>
      <strong class="client-name">{answer.client.name}</strong>: {clientProblemText(answer.problem)}
      {said && <span class="client-said"> {said}</span>}
    </li>
  );
}

export function InYourClient({ status, view, onOpenSettings }: { status: ClientStatus | undefined; view: TabView; onOpenSettings: () => void }) {
  if (!status || status.state === 'no-hashes' || !view.hashes.length) return null;
  if (status.state === 'no-client') {
    return (
      <p class="client-status no-client muted">
        {t('clientNoneSetUp')} ·{' '}
        <button type="button" class="link-button" onClick={onOpenSettings}>
          {t('openSettings')}
        </button>
      </p>
    );
  }
  const unanswered = status.clients.filter((answer): answer is Exclude<ClientAnswer, { state: 'answered' }> => answer.state !== 'answered');
  const problems = unanswered.length > 0 && (
    <div class={`notice warn client-problems${unanswered.every((answer) => answer.state === 'slow') ? ' slow' : ''}`} role={unanswered.some((answer) => answer.state === 'problem') ? 'alert' : 'status'}>
      {status.clients.length === 1 && unanswered[0]?.state === 'problem' && <strong class="notice-title">{t('clientFailed')}</strong>}
      <ul class="client-unanswered-list">
        {unanswered.map((answer) => (
          <UnansweredLine key={answer.client.id} answer={answer} />
        ))}
      </ul>
      {unanswered.some((answer) => answer.state === 'problem') && (
        <p class="actions">
          <button type="button" onClick={onOpenSettings}>
            {t('openSettings')}
          </button>
        </p>
      )}
    </div>
  );
  if (view.hashes.length === 1) {
    const hash = view.hashes[0]!.hash;
    const holders = holdersOf(status, hash);
    const copy = status.copies?.[hash];
    return (
      <section class={`client-status ${holders.length ? 'in-client' : 'not-in-client'}`} aria-label={t('clientInYour')}>
        {holders.length ? (
          <>
            <p class="client-line">
              <strong class="in-client-title">{t('clientInYour')}</strong>
            </p>
            <ul class="client-held">
              {holders.map((holder) => (
                <HeldLine key={holder.name} name={holder.name} torrent={holder.torrent} />
              ))}
            </ul>
          </>
        ) : (
          unanswered.length < status.clients.length && <p class="client-line muted">{t('clientNotIn')}</p>
        )}
        {copy && 'into' in copy && copy.into !== copy.from && (
          <p class="client-copies muted small">{t('clientCopiesGoTo', copy.into, copy.savePath)}</p>
        )}
        {copy && 'refused' in copy && <p class="client-copies muted small">{crossSeedText(copy.refused, '').join(' ')}</p>}
        {problems}
      </section>
    );
  }
  // A list page: how many of its torrents any client holds, each with where.
  const held = view.hashes.flatMap((found) => holdersOf(status, found.hash).map((holder) => ({ ...holder, hash: found.hash })));
  const heldCount = new Set(held.map((entry) => entry.hash)).size;
  return (
    <section class="client-status list" aria-label={t('clientInYour')}>
      <p class="client-line">{t('clientPageHeldCount', formatNumber(heldCount), formatNumber(view.hashes.length))}</p>
      {held.length > 0 && (
        <details>
          <summary>{t('clientInYour')}</summary>
          <ul class="client-held">
            {held.map((entry) => (
              <li key={`${entry.hash}:${entry.name}`}>
                <span class="client-torrent">{entry.torrent.name}</span>{' '}
                <span class="client-state muted">
                  · {entry.name}: {torrentStateText(entry.torrent.state, entry.torrent.progress)}
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
      {problems}
    </section>
  );
}
