/**
 * The user's own sites: which ones they hold an account on (what the site report sends to the
 * service as sid_list), and per site an address override and the passkey some sites want in their
 * download address (for "Cross-seed").
 */
import type { Reply } from '../../protocol';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { FailureNotice } from '../../../components/FailureNotice';
import { formatNumber, t } from '../../../utils/i18n';
import type { SettingsView } from '../../settings/settings.messages';
import type { SiteChoice } from '../sites.messages';
import { sendToBackground } from '../../send-to-background';
import { siteForHost, siteForSid } from '../../../utils/sites/catalog';
import type { CatalogSite } from '../../../utils/sites/site-types';
import { catalogEntryOf } from '../../../utils/sites/pinning';
import { downloadRuleOf } from '../../../utils/sites/download-rules';
import { fieldLabel } from '../../../components/field-names';
import { mirrorOf, parseOverride, shownOverride, type OverrideDraft } from './site-overrides';
import { IDLE, StatusLine, type Status } from '../../../components/StatusLine';
import { browser } from 'wxt/browser';
import { piecesHashAddress } from '../../../utils/sites/pieces-hash-address';
import { permissionPattern } from '../../../utils/permission-pattern';
import { piecesHashPathSchema, type PiecesHashSite, type SiteOverride } from '../../../utils/settings';
import type { ClientKind } from '../../../utils/clients/client-types';
import { PiecesHashFields, piecesHashTestStatus } from '../../pieces-hash/ui/PiecesHashFields';

type SiteList = Reply<'sites:list'>;

interface SectionProps {
  view: SettingsView;
  onSaved: (view: SettingsView) => void;
}

/** Both sections share one site list, asked for once. */
export function SitesSections({ view, onSaved }: SectionProps) {
  const [list, setList] = useState<SiteList | undefined>();
  const load = async (refresh: boolean) => {
    const answer = await sendToBackground('sites:list', { refresh });
    setList(answer ?? { sites: [], seen: [], fromService: false });
  };
  useEffect(() => {
    void load(false);
  }, []);
  return (
    <>
      <YourSites view={view} onSaved={onSaved} list={list} onRefresh={() => void load(true)} />
      <SiteAddresses view={view} onSaved={onSaved} list={list} />
    </>
  );
}

/** Everything a person may type to find a site: both its names, its short name, its hosts. */
function searchText(site: SiteChoice): string {
  const entry = siteForSid(site.sid);
  return [site.nickname, site.site, site.host, entry?.nickname, entry?.nameZh, ...(entry?.hosts ?? [])]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
}

/** The other name of a site, shown beside the one in the user's language (天空 · HDSky). */
function otherName(site: SiteChoice): string | undefined {
  const entry = siteForSid(site.sid);
  const names = [entry?.nameZh, entry?.nickname, site.site].filter((name): name is string => !!name && name !== site.nickname);
  return names[0];
}

function YourSites({ view, onSaved, list, onRefresh }: SectionProps & { list?: SiteList; onRefresh: () => void }) {
  const held = view.settings.heldSites;
  const [ticked, setTicked] = useState<Set<number>>(() => new Set(held ?? []));
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState<Status>(IDLE);

  const indexed = useMemo(() => (list?.sites ?? []).map((site) => ({ site, text: searchText(site) })), [list]);
  const seen = useMemo(() => new Set(list?.seen ?? []), [list]);
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const shown = indexed.filter(({ text }) => words.every((word) => text.includes(word))).map(({ site }) => site);
  // Sites the user visited come first: those are the likeliest to be theirs.
  const visited = shown.filter((site) => seen.has(site.sid));
  const others = shown.filter((site) => !seen.has(site.sid));

  const toggle = (sid: number, on: boolean) => {
    const next = new Set(ticked);
    if (on) next.add(sid);
    else next.delete(sid);
    setTicked(next);
  };

  const save = async (heldSites: number[] | null) => {
    if (heldSites && !heldSites.length) {
      setStatus({ kind: 'problem', text: t('sitesChooseOne') });
      return;
    }
    setStatus({ kind: 'working', text: t('saving') });
    const answer = await sendToBackground('settings:save', { update: { heldSites, askedForSites: true } });
    if (!answer || !('settings' in answer)) {
      setStatus({ kind: 'problem', text: t('fieldRefused', fieldLabel((answer && 'refused' in answer && answer.refused) || 'heldSites')) });
      return;
    }
    if (!heldSites) setTicked(new Set());
    setStatus({ kind: 'ok', text: heldSites ? t('sitesSavedOk', formatNumber(heldSites.length)) : t('sitesClearedOk') });
    onSaved(answer);
  };

  const group = (heading: string | undefined, sites: SiteChoice[], id: string) =>
    sites.length > 0 && (
      <div class="site-group" role="group" aria-labelledby={heading ? id : undefined} aria-label={heading ? undefined : t('yourSitesHeading')}>
        {heading && <h3 id={id}>{heading}</h3>}
        <ul class="site-choices">
          {sites.map((site) => {
            const alt = otherName(site);
            return (
              <li key={site.sid}>
                <label class="choice" data-sid={site.sid}>
                  <input type="checkbox" value={String(site.sid)} checked={ticked.has(site.sid)} onChange={(event) => toggle(site.sid, (event.currentTarget as HTMLInputElement).checked)} />
                  <span class="choice-name">{site.nickname}</span>
                  {alt && <span class="muted small">{alt}</span>}
                  {site.host && <span class="muted small choice-host">{site.host}</span>}
                  {seen.has(site.sid) && <span class="tag">{t('visitedTag')}</span>}
                </label>
              </li>
            );
          })}
        </ul>
      </div>
    );

  return (
    <section class="card" id="sites-section" aria-labelledby="sites-heading">
      <div class="section-head">
        <h2 id="sites-heading">{t('yourSitesHeading')}</h2>
        <button type="button" id="sites-refresh" onClick={onRefresh} disabled={!list}>
          {t('refreshList')}
        </button>
      </div>
      <p class="hint">{t('yourSitesIntro')}</p>
      <p id="sites-saved-state">{held === null ? t('yourSitesNotChosen') : t('yourSitesSavedCount', formatNumber(held.length))}</p>
      {list && !list.fromService && (
        <div class="notice warn" role="status">
          <strong class="notice-title">{t('yourSitesFromCatalog')}</strong>
        </div>
      )}
      {list?.error && list.error.kind !== 'no-credentials' && <FailureNotice failure={list.error} />}
      {!list ? (
        <p class="muted" aria-busy="true">
          {t('sitesLoading')}
        </p>
      ) : (
        <>
          <div class="search">
            <label for="site-search">{t('searchSites')}</label>
            <input
              id="site-search"
              type="search"
              value={query}
              placeholder={t('searchSitesHint')}
              onInput={(event) => setQuery((event.currentTarget as HTMLInputElement).value)}
              autocomplete="off"
              spellcheck={false}
              aria-describedby="sites-count"
            />
          </div>
          <p id="sites-count" class="muted small" aria-live="polite">
            {t('sitesShownChosen', formatNumber(shown.length), formatNumber(indexed.length), formatNumber(ticked.size))}
          </p>
          <div class="site-list" id="site-list">
            {group(visited.length ? t('sitesVisited') : undefined, visited, 'sites-visited-heading')}
            {group(visited.length ? t('sitesOthers') : undefined, others, 'sites-others-heading')}
            {!shown.length && <p class="muted">{t('sitesNoMatch', query.trim())}</p>}
          </div>
        </>
      )}
      <div class="buttons">
        <button type="button" class="primary" id="sites-save" disabled={!list} onClick={() => void save([...ticked].sort((a, b) => a - b))}>
          {t('saveSites')}
        </button>
        <button type="button" id="sites-clear" onClick={() => void save(null)}>
          {t('sitesReportAll')}
        </button>
      </div>
      <StatusLine status={status} id="sites-status" />
    </section>
  );
}

/** What a site's passkey must look like (the settings' own rule): a paste accident is refused, not dropped. */
const PASSKEY = /^[A-Za-z0-9_-]{8,128}$/;

/** What a site's API key must look like (the settings' own rule). */
const API_KEY = /^[A-Za-z0-9_-]{8,256}$/;

/**
 * `confirm`: the user's yes to downloads from a mirror (their passkey and session go there).
 * `apiKey`: for a site whose download rule asks its API (M-Team), the key the user made there.
 * `piecesHash`: whether the site is asked by pieces hash, and the API's path as typed (empty: the definition's).
 */
type AddressDraft = OverrideDraft & { passkey: string; confirm: boolean; apiKey: string; piecesHash: { on: boolean; path: string } };

/**
 * The problem of a typed pieces-hash path for a site, in words, or undefined when it may be saved:
 * the settings' own rule, then the address it makes must be the site's own (the passkey goes there).
 */
function piecesHashPathProblem(entry: CatalogSite | undefined, path: string, override: SiteOverride | undefined): string | undefined {
  if (!piecesHashPathSchema.safeParse(path).success || !entry) return t('piecesHashPathBad');
  const address = piecesHashAddress(entry, path, override);
  if (!('problem' in address)) return undefined;
  return address.problem === 'other-host' ? t('piecesHashPathOtherHost', address.host) : t('piecesHashPathBad');
}

function SiteAddresses({ view, onSaved, list }: SectionProps & { list?: SiteList }) {
  const held = view.settings.heldSites ?? [];
  const saved = view.settings.siteOverrides;
  const savedKeys = view.settings.sitePasskeys;
  const savedApiKeys = view.settings.siteApiKeys;
  const savedPiecesHash = view.settings.piecesHashSites;
  const [drafts, setDrafts] = useState<Record<string, AddressDraft>>({});
  const [pathErrors, setPathErrors] = useState<Record<string, string>>({});
  const [tests, setTests] = useState<Record<string, Status>>({});
  // A client kind that gives no piece hashes over its API, when no saved client is a qBittorrent (every qBittorrent is read for them).
  const [clientWithoutPieces, setClientWithoutPieces] = useState<ClientKind | undefined>();
  useEffect(() => {
    void sendToBackground('clients:list', {})
      .then((answer) => {
        const clients = answer?.clients ?? [];
        setClientWithoutPieces(clients.some((client) => client.type === 'qbittorrent') ? undefined : clients[0]?.type);
      })
      .catch(() => undefined);
  }, []);
  const [errors, setErrors] = useState<Record<string, boolean>>({});
  const [keyErrors, setKeyErrors] = useState<Record<string, boolean>>({});
  const [apiKeyErrors, setApiKeyErrors] = useState<Record<string, boolean>>({});
  const [status, setStatus] = useState<Status>(IDLE);

  const draftFor = (sid: number): AddressDraft => {
    const override = saved[String(sid)];
    return (
      drafts[sid] ?? {
        host: override?.host ?? '',
        scheme: override?.scheme ?? '',
        passkey: savedKeys[String(sid)] ?? '',
        apiKey: savedApiKeys[String(sid)] ?? '',
        confirm: !!override?.host && override.confirmedHost === override.host,
        piecesHash: { on: !!savedPiecesHash[String(sid)]?.on, path: savedPiecesHash[String(sid)]?.path ?? '' },
      }
    );
  };
  /** The catalog's site the user sees under this sid (by the service's list's name when there is one). */
  const entryOf = (sid: number) => {
    const choice = list?.sites.find((site) => site.sid === sid);
    return choice ? catalogEntryOf({ id: sid, site: choice.site, base_url: choice.host }) : siteForSid(sid);
  };
  const edit = (sid: number, change: Partial<AddressDraft>) => {
    // A new address needs its own yes: a tick given to another address does not carry over.
    const reset = change.host !== undefined && change.host.trim() !== draftFor(sid).host.trim() ? { confirm: false } : {};
    setDrafts({ ...drafts, [sid]: { ...draftFor(sid), ...reset, ...change } });
    if (errors[sid]) setErrors({ ...errors, [sid]: false });
    if (keyErrors[sid] && change.passkey !== undefined) setKeyErrors({ ...keyErrors, [sid]: false });
    if (apiKeyErrors[sid] && change.apiKey !== undefined) setApiKeyErrors({ ...apiKeyErrors, [sid]: false });
    if (pathErrors[sid] && change.piecesHash !== undefined) setPathErrors({ ...pathErrors, [sid]: '' });
  };
  /** Whether the site has a pieces-hash API to ask (a NexusPHP site, or one whose definition names one). */
  const offersPiecesHash = (sid: number) => {
    const entry = entryOf(sid);
    if (!entry) return false;
    const address = piecesHashAddress(entry, undefined);
    return !('problem' in address && address.problem === 'not-nexusphp');
  };
  const editPiecesHash = (sid: number, change: Partial<AddressDraft['piecesHash']>) => edit(sid, { piecesHash: { ...draftFor(sid).piecesHash, ...change } });
  /**
   * "Test": one request with a random pieces hash, at the address the fieldset shows (its host,
   * scheme and yes to a mirror, saved or not) with the typed path and passkey: never at an address
   * the background still holds while a Save is on its way, nor at the saved one under an edited
   * field. A host the manifest does not hold (a confirmed mirror) is asked for within the click,
   * before anything awaits.
   */
  const testPiecesHash = (sid: number) => {
    const draft = draftFor(sid);
    const entry = entryOf(sid);
    const show = (status: Status) => setTests((all) => ({ ...all, [sid]: status }));
    const override = shownOverride(draft, entry);
    if (override === 'invalid') {
      // The fieldset shows no address a Test could go to: said as Save says it.
      setErrors({ ...errors, [sid]: true });
      show({ kind: 'problem', text: t('overrideBadHost') });
      return;
    }
    const address = entry && piecesHashAddress(entry, draft.piecesHash.path, override);
    const host = address && 'endpoint' in address ? new URL(address.endpoint).hostname : undefined;
    const permission = address && 'endpoint' in address && host && !siteForHost(host) ? browser.permissions.request({ origins: [permissionPattern(address.endpoint)] }).catch(() => false) : Promise.resolve(true);
    show({ kind: 'working', text: t('piecesHashTesting', nameOf(sid)) });
    void permission
      .then(() => sendToBackground('pieces:test', { sid, path: draft.piecesHash.path, passkey: draft.passkey, override: override ?? null }))
      .then(
        (view) => show(piecesHashTestStatus(view, nameOf(sid))),
        () => show(piecesHashTestStatus(undefined, nameOf(sid))),
      );
  };
  /** Whether the site's .torrent files come through its API, with a key the user enters (M-Team). */
  const wantsApiKey = (sid: number) => {
    const entry = entryOf(sid);
    return !!entry && !!downloadRuleOf(entry).apiToken;
  };
  const nameOf = (sid: number) => list?.sites.find((site) => site.sid === sid)?.nickname ?? siteForSid(sid)?.nameZh ?? siteForSid(sid)?.nickname ?? `#${sid}`;
  const usualHost = (sid: number) => list?.sites.find((site) => site.sid === sid)?.host ?? siteForSid(sid)?.hosts[0] ?? '';

  const save = async (event: Event) => {
    event.preventDefault();
    // Overrides of sites no longer held are kept: ticking a site again brings its address back.
    const next: Record<string, { host?: string; scheme?: 'http' | 'https' }> = { ...saved };
    const keys: Record<string, string> = { ...savedKeys };
    const apiKeys: Record<string, string> = { ...savedApiKeys };
    // Sites no longer held keep their choice too, as their overrides do.
    const piecesHashSites: Record<string, PiecesHashSite> = { ...savedPiecesHash };
    const badPath: Record<string, string> = {};
    const badApiKey: Record<string, boolean> = {};
    const bad: Record<string, boolean> = {};
    const badKey: Record<string, boolean> = {};
    for (const sid of held) {
      const draft = draftFor(sid);
      const override = shownOverride(draft, entryOf(sid));
      if (override === 'invalid') bad[sid] = true;
      else if (override) next[String(sid)] = override;
      else delete next[String(sid)];
      const passkey = draft.passkey.trim();
      if (passkey && !PASSKEY.test(passkey)) badKey[sid] = true;
      else if (passkey) keys[String(sid)] = passkey;
      else delete keys[String(sid)];
      if (offersPiecesHash(sid)) {
        const { on, path: typed } = draft.piecesHash;
        const path = typed.trim();
        const problem = path ? piecesHashPathProblem(entryOf(sid), path, next[String(sid)]) : undefined;
        if (problem) badPath[sid] = problem;
        else if (on || path) piecesHashSites[String(sid)] = path ? { on, path } : { on };
        else delete piecesHashSites[String(sid)];
      }
      if (!wantsApiKey(sid)) continue;
      const apiKey = draft.apiKey.trim();
      if (apiKey && !API_KEY.test(apiKey)) badApiKey[sid] = true;
      else if (apiKey) apiKeys[String(sid)] = apiKey;
      else delete apiKeys[String(sid)];
    }
    setErrors(bad);
    setKeyErrors(badKey);
    setApiKeyErrors(badApiKey);
    setPathErrors(badPath);
    const firstBad = held.find((sid) => bad[sid] || badKey[sid] || badApiKey[sid] || badPath[sid]);
    if (firstBad !== undefined) {
      const field = bad[firstBad] ? 'override-host' : badKey[firstBad] ? 'site-passkey' : badApiKey[firstBad] ? 'site-api-key' : 'pieces-hash-path';
      document.getElementById(`${field}-${firstBad}`)?.focus();
      setStatus({ kind: 'problem', text: t('overridesFixErrors') });
      return;
    }
    setStatus({ kind: 'working', text: t('saving') });
    const answer = await sendToBackground('settings:save', { update: { siteOverrides: next, sitePasskeys: keys, siteApiKeys: apiKeys, piecesHashSites } });
    if (!answer || !('settings' in answer)) {
      setStatus({ kind: 'problem', text: t('fieldRefused', fieldLabel((answer && 'refused' in answer && answer.refused) || 'siteOverrides')) });
      return;
    }
    // Show what was stored (normalised), not what was typed.
    setDrafts({});
    setStatus({ kind: 'ok', text: t('overridesSaved') });
    onSaved(answer);
  };

  return (
    <section class="card" id="addresses-section" aria-labelledby="addresses-heading">
      <h2 id="addresses-heading">{t('overridesHeading')}</h2>
      <p class="hint">{t('overridesIntro')}</p>
      <p class="hint" id="site-passkey-hint">{t('sitePasskeyHint')}</p>
      {!held.length ? (
        <p class="muted">{t('overridesNeedSites')}</p>
      ) : (
        <form onSubmit={(event) => void save(event)} noValidate>
          <ul class="overrides">
            {held.map((sid) => {
              const draft = draftFor(sid);
              const invalid = !!errors[sid];
              return (
                <li key={sid}>
                  <fieldset class="override" data-sid={sid}>
                    <legend>{nameOf(sid)}</legend>
                    <label for={`override-host-${sid}`}>{t('overrideHost')}</label>
                    <input
                      id={`override-host-${sid}`}
                      type="text"
                      inputMode="url"
                      value={draft.host}
                      placeholder={usualHost(sid)}
                      autocomplete="off"
                      spellcheck={false}
                      aria-invalid={invalid}
                      aria-describedby={invalid ? `override-error-${sid}` : undefined}
                      onInput={(event) => edit(sid, { host: (event.currentTarget as HTMLInputElement).value })}
                    />
                    <label for={`override-scheme-${sid}`}>{t('overrideScheme')}</label>
                    <select
                      id={`override-scheme-${sid}`}
                      value={draft.scheme}
                      onChange={(event) => edit(sid, { scheme: (event.currentTarget as HTMLSelectElement).value as OverrideDraft['scheme'] })}
                    >
                      <option value="">{t('schemeDefault')}</option>
                      <option value="https">https</option>
                      <option value="http">http</option>
                    </select>
                    {invalid && (
                      <p class="status problem field-problem" id={`override-error-${sid}`}>
                        {t('overrideBadHost')}
                      </p>
                    )}
                    <MirrorChoice sid={sid} name={nameOf(sid)} draft={draft} entry={entryOf(sid)} onConfirm={(confirm) => edit(sid, { confirm })} />
                    <label for={`site-passkey-${sid}`}>{t('sitePasskeyLabel')}</label>
                    <input
                      id={`site-passkey-${sid}`}
                      class="site-passkey"
                      type="password"
                      value={draft.passkey}
                      autocomplete="off"
                      spellcheck={false}
                      aria-invalid={!!keyErrors[sid]}
                      aria-describedby={keyErrors[sid] ? `site-passkey-error-${sid} site-passkey-hint` : 'site-passkey-hint'}
                      onInput={(event) => edit(sid, { passkey: (event.currentTarget as HTMLInputElement).value })}
                    />
                    {keyErrors[sid] && (
                      <p class="status problem field-problem" id={`site-passkey-error-${sid}`}>
                        {t('sitePasskeyBad')}
                      </p>
                    )}
                    {wantsApiKey(sid) && (
                      <>
                        <label for={`site-api-key-${sid}`}>{t('siteApiKeyLabel')}</label>
                        <input
                          id={`site-api-key-${sid}`}
                          class="site-api-key"
                          type="password"
                          value={draft.apiKey}
                          autocomplete="off"
                          spellcheck={false}
                          aria-invalid={!!apiKeyErrors[sid]}
                          aria-describedby={apiKeyErrors[sid] ? `site-api-key-error-${sid} site-api-key-hint-${sid}` : `site-api-key-hint-${sid}`}
                          onInput={(event) => edit(sid, { apiKey: (event.currentTarget as HTMLInputElement).value })}
                        />
                        <p class="hint" id={`site-api-key-hint-${sid}`}>
                          {t('siteApiKeyHint')}
                        </p>
                        {apiKeyErrors[sid] && (
                          <p class="status problem field-problem" id={`site-api-key-error-${sid}`}>
                            {t('siteApiKeyInvalid')}
                          </p>
                        )}
                      </>
                    )}
                    {offersPiecesHash(sid) && (
                      <PiecesHashFields
                        sid={sid}
                        name={nameOf(sid)}
                        draft={draft.piecesHash}
                        definitionPath={entryOf(sid)?.piecesHashPath ?? ''}
                        pathError={pathErrors[sid] || undefined}
                        test={tests[sid] ?? IDLE}
                        clientWithoutPieces={clientWithoutPieces}
                        onChange={(change) => editPiecesHash(sid, change)}
                        onTest={() => testPiecesHash(sid)}
                      />
                    )}
                  </fieldset>
                </li>
              );
            })}
          </ul>
          <div class="buttons">
            <button type="submit" class="primary" id="overrides-save">
              {t('saveOverrides')}
            </button>
          </div>
        </form>
      )}
      <StatusLine status={status} id="overrides-status" />
    </section>
  );
}

/**
 * Under a typed address that is not one of the site's own: a mirror gets a yes of its own for
 * downloads (the site's passkey and the user's session go there), unticked until the user ticks it;
 * another known site's address is said to be refused for downloads.
 */
function MirrorChoice({
  sid,
  name,
  draft,
  entry,
  onConfirm,
}: {
  sid: number;
  name: string;
  draft: AddressDraft;
  entry: ReturnType<typeof siteForSid>;
  onConfirm: (confirm: boolean) => void;
}) {
  const parsed = parseOverride(draft);
  const mirror = parsed && parsed !== 'invalid' ? mirrorOf(parsed.host, entry) : undefined;
  if (!mirror) return null;
  if (mirror.kind === 'other-site') {
    return (
      <p class="hint warn-text override-other-site" id={`override-other-site-${sid}`}>
        {t('overrideOtherSiteHost', mirror.host, siteForHost(mirror.host)?.nickname ?? mirror.host, name)}
      </p>
    );
  }
  return (
    <label class="check override-confirm">
      <input type="checkbox" id={`override-confirm-${sid}`} checked={draft.confirm} onChange={(event) => onConfirm((event.currentTarget as HTMLInputElement).checked)} />
      {t('overrideConfirmHost', mirror.host, name)}
    </label>
  );
}
