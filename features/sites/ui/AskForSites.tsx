import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { countKey, formatNumber, t } from '../../../utils/i18n';
import type { SiteChoice } from '../sites.messages';
import { sendToBackground } from '../../send-to-background';

/**
 * Asks once which sites the user is on, until they pick: the sites the extension saw them visit,
 * ticked. "Save" makes those their sites, "Not now" only records that we asked; either way it
 * does not come back. The options page has the full list.
 */
export function AskForSites({ onSaved }: { onSaved?: (held: number[]) => void }) {
  const [offered, setOffered] = useState<SiteChoice[]>([]);
  const [ticked, setTicked] = useState<ReadonlySet<number>>(new Set());
  const [state, setState] = useState<'asking' | 'saving' | 'saved' | 'closed' | 'failed'>('asking');

  useEffect(() => {
    let alive = true;
    void (async () => {
      const { settings } = await sendToBackground('settings:get', {});
      if (settings.heldSites !== null || settings.askedForSites) return;
      const { sites, seen } = await sendToBackground('sites:list', {});
      const visited = sites.filter((site) => seen.includes(site.sid));
      if (!alive || !visited.length) return;
      setOffered(visited);
      setTicked(new Set(visited.map((site) => site.sid)));
    })().catch(() => undefined);
    return () => {
      alive = false;
    };
  }, []);

  if (!offered.length || state === 'closed') return null;

  const save = async (update: { heldSites?: number[]; askedForSites: true }) => {
    setState('saving');
    const answer = await sendToBackground('settings:save', { update }).catch(() => undefined);
    if (!answer || 'refused' in answer) return setState('failed');
    if (!update.heldSites) return setState('closed');
    setState('saved');
    onSaved?.(update.heldSites);
  };

  if (state === 'saved') {
    return (
      <p class="ask-sites saved" role="status">
        {t(countKey(ticked.size, 'askSitesSavedOne', 'askSitesSaved'), formatNumber(ticked.size))}
      </p>
    );
  }
  const toggle = (sid: number, on: boolean) => {
    const next = new Set(ticked);
    if (on) next.add(sid);
    else next.delete(sid);
    setTicked(next);
  };
  return (
    <section class="ask-sites" aria-labelledby="ask-sites-heading">
      <h2 id="ask-sites-heading">{t('askSitesTitle')}</h2>
      <p class="muted small">{t('askSitesHelp')}</p>
      <ul class="site-choices">
        {offered.map((site) => (
          <li key={site.sid}>
            <label>
              <input type="checkbox" value={site.sid} checked={ticked.has(site.sid)} onChange={(event) => toggle(site.sid, event.currentTarget.checked)} />
              <span>{site.nickname}</span> {site.host && <span class="muted small">{site.host}</span>}
            </label>
          </li>
        ))}
      </ul>
      {state === 'failed' && (
        <p class="problem" role="alert">
          {t('fieldRefused', t('fieldHeldSites'))}
        </p>
      )}
      <p class="actions">
        <button
          type="button"
          class="primary save-sites"
          disabled={!ticked.size || state === 'saving'}
          onClick={() => void save({ heldSites: [...ticked].sort((a, b) => a - b), askedForSites: true })}
        >
          {t('save')}
        </button>
        <button type="button" class="not-now" disabled={state === 'saving'} onClick={() => void save({ askedForSites: true })}>
          {t('notNow')}
        </button>
        <a href={browser.runtime.getURL('/options.html#sites-section')} target="_blank" rel="noopener">
          {t('askSitesAll')}
        </a>
      </p>
    </section>
  );
}
