/**
 * The popup's word on the user's default torrent client: whether it already holds this page's
 * torrent ("In your client", its state and save path), or why it could not be asked. Popup only:
 * a tracker page's scripts could measure anything in the in-page panel.
 */
import { useEffect, useState } from 'preact/hooks';
import { formatNumber, t } from '../../../utils/i18n';
import type { ClientStatus, HeldTorrent } from '../clients.messages';
import type { TabView } from '../../lookup/lookup.messages';
import { sendToBackground } from '../../send-to-background';
import { clientProblemText, clientSaidText, torrentStateText } from './client-text';
import { CLIENT_NAMES } from '../../../utils/clients/client-types';

/** The hashes a status answers for: the page's, then its candidates' (a change asks the client again). */
function askedKey(view: TabView | undefined): string {
  if (!view?.hashes.length) return '';
  return `${view.hashes.map((found) => found.hash).join(',')}|${view.candidates.map((candidate) => candidate.infoHash).join(',')}`;
}

/**
 * Asks the background what the default client holds for this tab, again whenever the page's hashes
 * or its candidates change, or `again` does (a cross-seed added a torrent). The last answer stays
 * shown while the next one is on its way.
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
      if (alive && answer) setStatus(answer);
    });
    return () => {
      alive = false;
    };
  }, [tabId, key, again]);
  return status;
}

/** The info-hashes the client holds, for marking candidates. */
export function heldHashes(status: ClientStatus | undefined): ReadonlySet<string> | undefined {
  return status?.state === 'answered' ? new Set(Object.keys(status.held)) : undefined;
}

function HeldLine({ torrent }: { torrent: HeldTorrent }) {
  return (
    <>
      <p class="client-line">
        <strong class="in-client-title">{t('clientInYour')}</strong> <span class="client-state">· {torrentStateText(torrent.state, torrent.progress)}</span>
      </p>
      <p class="client-path">
        {t('clientSavePath', '')}
        <code>{torrent.savePath}</code>
      </p>
    </>
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
  const clientName = `${CLIENT_NAMES[status.client.type]} ${status.client.url}`;
  if (status.state === 'problem') {
    const said = clientSaidText(status.problem);
    return (
      <div class="notice warn client-status client-problem" role="alert" data-kind={status.problem.kind}>
        <strong class="notice-title">{t('clientFailed')}</strong>
        <p>{clientProblemText(status.problem)}</p>
        {said && <p class="client-said">{said}</p>}
        <p class="muted small">{clientName}</p>
        <p class="actions">
          <button type="button" onClick={onOpenSettings}>
            {t('openSettings')}
          </button>
        </p>
      </div>
    );
  }
  const pageHeld = view.hashes.flatMap((found) => (status.held[found.hash] ? [status.held[found.hash]!] : []));
  if (view.hashes.length === 1) {
    const torrent = pageHeld[0];
    return (
      <section class={`client-status ${torrent ? 'in-client' : 'not-in-client'}`} aria-label={clientName} title={clientName}>
        {torrent ? (
          <HeldLine torrent={torrent} />
        ) : (
          <p class="client-line muted">{t('clientNotIn')}</p>
        )}
      </section>
    );
  }
  // A list page: how many of its torrents the client holds, each with its state.
  return (
    <section class="client-status list" aria-label={clientName} title={clientName}>
      <p class="client-line">{t('clientPageHeldCount', formatNumber(pageHeld.length), formatNumber(view.hashes.length))}</p>
      {pageHeld.length > 0 && (
        <details>
          <summary>{t('clientInYour')}</summary>
          <ul class="client-held">
            {pageHeld.map((torrent) => (
              <li key={torrent.hash}>
                <span class="client-name">{torrent.name}</span> <span class="client-state muted">· {torrentStateText(torrent.state, torrent.progress)}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
