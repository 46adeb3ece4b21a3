/**
 * The popup on a list page, from the indexes of the user's clients (issue #10; every client, issue
 * 33): the page's rows the user can cross-seed right now, each with "Cross-seed" and which client
 * holds its data and where its copy would go ("from NAS → Seedbox"); the rows whose data a client
 * holds but whose copy can go nowhere, with why; the rows already in a client, named; and the
 * switch for marks in this site's own pages, saying what the site learns from them. Popup only:
 * nothing here reaches the page unless the user turns marks on for its site.
 */
import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { crossSeedText } from '../../../utils/cross-seed-engine/result-text';
import type { CrossSeedResult } from '../../../utils/cross-seed-engine';
import { permissionPattern } from '../../../utils/permission-pattern';
import { formatNumber, t } from '../../../utils/i18n';
import type { IndexChanged, IndexPageAnswer, IndexRowView } from '../client-index.messages';
import type { TabView } from '../../lookup/lookup.messages';
import { sendToBackground } from '../../send-to-background';
import { torrentStateText } from '../../clients/ui/client-text';
import './list-index.css';
import { FoundByTag } from '../../lookup/ui/FoundBy';

/** What the index answers for: the page and its rows (a change asks again). */
function rowsKey(view: TabView): string {
  return view.kind === 'list' && view.rows?.length ? `${view.url}|${view.rows.map((row) => row.id).join(',')}` : '';
}

/** What one row's "Cross-seed" came to. */
interface RowOutcome {
  working: boolean;
  ok?: boolean;
  lines?: string[];
  /** The site's origin the browser refused the download from (the user may allow it, within a click). */
  allow?: { origin: string; siteName: string };
}

function allowOf(result: CrossSeedResult, siteName: string): RowOutcome['allow'] {
  return result.kind === 'no-permission' && result.for === 'site' ? { origin: result.origin, siteName } : undefined;
}

function RowTitle({ row }: { row: IndexRowView }) {
  return <span class="index-row-title">{row.title || t('indexRowId', row.id)}</span>;
}

/** Which client holds a row's data and where its copy would go: "from NAS → Seedbox" (with the path there when a folder pair maps it). */
function RowRoute({ row }: { row: IndexRowView }) {
  if (!row.from) return null;
  const into = row.into;
  const text = !into ? t('indexRouteFrom', row.from) : into.viaPair ? t('indexRouteInto', row.from, into.name, into.savePath) : t('indexRoute', row.from, into.name);
  return (
    <span class="index-route muted small" data-from={row.from} data-into={into?.name ?? ''}>
      {text}
    </span>
  );
}

export function ListIndex({ view, onOpenSettings }: { view: TabView; onOpenSettings: () => void }) {
  const [answer, setAnswer] = useState<IndexPageAnswer | undefined>();
  const [outcomes, setOutcomes] = useState<Record<string, RowOutcome>>({});
  const key = rowsKey(view);
  const tabId = view.tabId;

  useEffect(() => {
    if (!key) {
      setAnswer(undefined);
      return;
    }
    let alive = true;
    const ask = () =>
      void sendToBackground('index:page', { tabId }).then((next) => {
        if (alive && next) setAnswer(next);
      });
    ask();
    // A sync that ends while the popup is open changes what the index knows.
    const listener = (message: unknown) => {
      const changed = message as Partial<IndexChanged>;
      if (changed?.type === 'index:changed' && !changed.status?.running) ask();
    };
    browser.runtime.onMessage.addListener(listener);
    return () => {
      alive = false;
      browser.runtime.onMessage.removeListener(listener);
    };
  }, [tabId, key]);

  if (!key || !answer || answer.state === 'not-a-list') return null;
  if (answer.state !== 'answered') {
    const text = answer.state === 'off' ? t('indexPopupOff') : answer.state === 'no-client' ? t('clientNoneSetUp') : t('indexPopupUnknownSite');
    return (
      <section class="list-index" data-state={answer.state} aria-label={t('indexHeading')}>
        <p class="muted">
          {text}
          {answer.state !== 'unknown-site' && (
            <>
              {' · '}
              <button type="button" class="link-button" onClick={onOpenSettings}>
                {t('openSettings')}
              </button>
            </>
          )}
        </p>
      </section>
    );
  }

  const crossSeed = async (row: IndexRowView) => {
    setOutcomes((all) => ({ ...all, [row.id]: { working: true } }));
    const done = await sendToBackground('index:cross-seed', { tabId, rowId: row.id });
    if (!done) {
      setOutcomes((all) => ({ ...all, [row.id]: { working: false } }));
      return;
    }
    const ok = done.result.kind === 'added' || done.result.kind === 'already-in-client';
    setOutcomes((all) => ({ ...all, [row.id]: { working: false, ok, lines: crossSeedText(done.result, done.siteName), allow: allowOf(done.result, done.siteName) } }));
    setAnswer(done.page);
  };

  // The site's permission, asked within this click (the browser's rule), then the row again.
  const allowAndCrossSeed = (row: IndexRowView, origin: string) => {
    void browser.permissions
      .request({ origins: [permissionPattern(origin)] })
      .catch(() => false)
      .then((granted) => {
        if (granted) void crossSeed(row);
      });
  };

  const switchMarks = async (on: boolean) => {
    const next = await sendToBackground('index:row-marks', { tabId, on });
    if (next) setAnswer(next);
  };

  // Rows cross-seeded from this popup stay listed with what happened, even once they are in the client.
  const shownIds = new Set(answer.canCrossSeed.map((row) => row.id));
  const justAdded = answer.inClient.filter((row) => outcomes[row.id]?.lines && !shownIds.has(row.id));
  const crossSeedable = [...answer.canCrossSeed, ...justAdded];
  // Each row says where it was found once a site asked by pieces hash named any.
  const piecesFound = crossSeedable.some((row) => row.foundBy === 'pieces' || row.foundBy === 'both');
  const alreadyIn = answer.inClient.filter((row) => !justAdded.includes(row));

  return (
    <section class="list-index" data-state="answered" aria-labelledby="index-cross-seed-heading">
      <h2 id="index-cross-seed-heading">{t('indexCanCrossSeedHeading', formatNumber(answer.canCrossSeed.length))}</h2>
      {answer.empty ? (
        <p class="muted index-empty">
          {t('indexPopupEmpty')}{' '}
          <button type="button" class="link-button" onClick={onOpenSettings}>
            {t('openSettings')}
          </button>
        </p>
      ) : crossSeedable.length === 0 ? (
        <p class="muted index-none">{t('indexNoneOnPage')}</p>
      ) : (
        <ul class="index-rows can-cross-seed">
          {crossSeedable.map((row) => {
            const outcome = outcomes[row.id];
            return (
              <li key={row.id} class="index-row" data-row-id={row.id}>
                <RowTitle row={row} />
                {piecesFound && row.foundBy && <FoundByTag by={row.foundBy} />}
                <span class="index-source muted small">
                  {t('indexFrom', row.clientTorrent.name)} · <code>{row.clientTorrent.savePath}</code>
                </span>
                <RowRoute row={row} />
                {outcome?.lines ? (
                  <p class={`index-outcome ${outcome.ok ? 'ok' : 'problem'}`} role={outcome.ok ? 'status' : 'alert'}>
                    {outcome.lines.map((line, index) => (
                      <span key={index} class="line">
                        {line}
                      </span>
                    ))}
                  </p>
                ) : null}
                {outcome?.allow && !outcome.working && (
                  <button type="button" class="link-button allow-site" onClick={() => allowAndCrossSeed(row, outcome.allow!.origin)}>
                    {t('crossSeedAllowSite', outcome.allow.siteName)}
                  </button>
                )}
                {!outcome?.ok && (
                  <button type="button" class="primary index-cross-seed" disabled={outcome?.working} onClick={() => void crossSeed(row)}>
                    {outcome?.working ? t('crossSeedWorking') : t('crossSeedButton')}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {!!answer.refused?.length && (
        <details class="index-refused" open={answer.refused.length <= 5}>
          <summary>{t('indexRefusedHeading', formatNumber(answer.refused.length))}</summary>
          <ul class="index-rows refused">
            {answer.refused.map((row) => (
              <li key={row.id} class="index-row" data-row-id={row.id}>
                <RowTitle row={row} />
                <RowRoute row={row} />
                {row.refused && (
                  <p class="index-outcome problem">
                    {crossSeedText(row.refused, answer.siteName ?? answer.host).map((line, index) => (
                      <span key={index} class="line">
                        {line}
                      </span>
                    ))}
                  </p>
                )}
              </li>
            ))}
          </ul>
        </details>
      )}
      {alreadyIn.length > 0 && (
        <details class="index-in-client" open={alreadyIn.length <= 5}>
          <summary>{t('indexInClientHeading', formatNumber(alreadyIn.length))}</summary>
          <ul class="index-rows in-client">
            {alreadyIn.map((row) => (
              <li key={row.id} class="index-row" data-row-id={row.id}>
                <RowTitle row={row} /> <span class="muted small">· {torrentStateText(row.clientTorrent.state, row.clientTorrent.progress)}</span>
                {!!row.heldBy?.length && (
                  <span class="index-held-by muted small" data-clients={row.heldBy.join('\n')}>
                    {' · '}
                    {t('indexHeldBy', row.heldBy.join(', '))}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </details>
      )}
      <label class="check index-marks">
        <input type="checkbox" id="index-row-marks" checked={answer.marks} aria-describedby="index-marks-warning" onChange={(event) => void switchMarks((event.currentTarget as HTMLInputElement).checked)} />
        {t('indexMarksLabel')}
      </label>
      <p class="muted small" id="index-marks-warning">
        {t('indexMarksWarning', answer.siteName ?? answer.host)}
      </p>
    </section>
  );
}
