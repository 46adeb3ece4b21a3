import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { AccountSections } from '../../features/account/ui/AccountSections';
import { BackupSection } from '../../features/settings/ui/BackupSection';
import { ClientIndexSection } from '../../features/client-index/ui/ClientIndexSection';
import { GetStarted, GetStartedLink } from '../../features/get-started/ui/GetStarted';
import { ClientsSection } from '../../features/clients/ui/ClientsSection';
import { fieldList, fieldLabel } from '../../components/field-names';
import { CustomSitesSection, PanelSection } from '../../features/settings/ui/PanelSettings';
import { FirstRunNotice, PrivacySection } from '../../features/settings/ui/PrivacySection';
import { SitesSections } from '../../features/sites/ui/SitesSections';
import { StatusLine, type Status } from '../../components/StatusLine';
import { formatNumber, t, type MessageKey } from '../../utils/i18n';
import type { SettingsView } from '../../features/settings/settings.messages';
import { sendToBackground } from '../../features/send-to-background';
import { isKnownServiceOrigin, normaliseBaseUrl, type Settings } from '../../utils/settings';
import { settingsItem } from '../../features/settings/settings.storage';
import { permissionPattern } from '../../utils/permission-pattern';
import { hostAndPortOf } from '../../utils/url';

type ConnectionForm = Pick<Settings, 'baseUrl' | 'token' | 'appId' | 'secret'>;

/** The service connection: base URL, token, App ID, Secret, with Save and Test connection. */
function ConnectionSection({ view, onSaved }: { view: SettingsView; onSaved: (view: SettingsView) => void }) {
  const [form, setForm] = useState<ConnectionForm>({
    baseUrl: view.settings.baseUrl,
    token: view.settings.token,
    appId: view.settings.appId,
    secret: view.settings.secret,
  });
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const [showSecrets, setShowSecrets] = useState(false);
  const update = (field: keyof ConnectionForm) => (event: Event) =>
    setForm({ ...form, [field]: (event.currentTarget as HTMLInputElement).value });

  // The saved credentials would go to another service address: asked once, answered by a button.
  const [confirming, setConfirming] = useState<string | undefined>();

  const send = async (values: ConnectionForm, baseUrl: string, keepCredentials: boolean) => {
    setStatus({ kind: 'working', text: t('saving') });
    const answer = await sendToBackground('settings:save', {
      update: { baseUrl, token: values.token.trim(), appId: values.appId.trim(), secret: values.secret.trim() },
      keepCredentials,
    });
    if (answer && 'confirm' in answer) {
      setConfirming(answer.origin);
      setStatus({ kind: 'idle' });
      return;
    }
    setConfirming(undefined);
    if (!answer || 'refused' in answer) {
      setStatus({ kind: 'problem', text: t('fieldRefused', fieldLabel(answer?.refused ?? 'settings')) });
      return;
    }
    setForm({ ...values, baseUrl });
    setStatus({ kind: 'ok', text: t('saved') });
    onSaved(answer);
  };

  const save = (event: Event, values = form, keepCredentials = false) => {
    event.preventDefault();
    const baseUrl = normaliseBaseUrl(values.baseUrl);
    if (!baseUrl) {
      setStatus({ kind: 'problem', text: t('badBaseUrl') });
      return;
    }
    // A service on another origin needs its host permission; ask within this click, before any await.
    const permission = isKnownServiceOrigin(baseUrl)
      ? Promise.resolve(true)
      : browser.permissions.request({ origins: [permissionPattern(baseUrl)] }).catch(() => false);
    void permission.then(async (granted) => {
      if (!granted) {
        setStatus({ kind: 'problem', text: t('permissionRefused', new URL(baseUrl).origin) });
        return;
      }
      await send(values, baseUrl, keepCredentials);
    });
  };

  /** "Save without my token": the new address gets no credentials from the old one. */
  const dropCredentials = (event: Event) => {
    const values = { ...form, token: '', appId: '', secret: '' };
    setForm(values);
    save(event, values);
  };

  const test = async () => {
    setStatus({ kind: 'working', text: t('testing') });
    const answer = await sendToBackground('connection:test', { baseUrl: form.baseUrl, token: form.token });
    if (answer.ok) setStatus({ kind: 'ok', text: t('testOk', formatNumber(answer.siteCount ?? 0)) });
    else if (answer.error) setStatus({ kind: 'failure', failure: answer.error });
  };

  const plainHttp = /^\s*http:\/\//i.test(form.baseUrl);
  return (
    <section class="card" id="connection-section" aria-labelledby="connection-heading">
      <h2 id="connection-heading">{t('connectionHeading')}</h2>
      <form onSubmit={save} class="fields">
        <label for="baseUrl">{t('labelBaseUrl')}</label>
        <input
          id="baseUrl"
          name="baseUrl"
          type="url"
          value={form.baseUrl}
          onInput={update('baseUrl')}
          spellcheck={false}
          autocomplete="off"
          aria-describedby={plainHttp ? 'http-warning' : undefined}
        />
        <p class="hint">{t('hintBaseUrl')}</p>
        {/* Shown before Save: typing an http address and saving it is the explicit choice. */}
        {plainHttp && (
          <p class="hint warn-text" id="http-warning">
            {t('plainHttpWarning')}
          </p>
        )}

        <label for="token">{t('labelToken')}</label>
        <input
          id="token"
          name="token"
          type={(showSecrets ? 'text' : 'password') as 'text'}
          value={form.token}
          onInput={update('token')}
          spellcheck={false}
          autocomplete="off"
        />
        <p class="hint">{t('hintToken')}</p>

        <label for="appId">{t('labelAppId')}</label>
        <input id="appId" name="appId" type="text" value={form.appId} onInput={update('appId')} spellcheck={false} autocomplete="off" />

        <label for="secret">{t('labelSecret')}</label>
        <input
          id="secret"
          name="secret"
          type={(showSecrets ? 'text' : 'password') as 'text'}
          value={form.secret}
          onInput={update('secret')}
          spellcheck={false}
          autocomplete="off"
        />
        <p class="hint">{t('hintSigned')}</p>

        <label class="check">
          <input type="checkbox" checked={showSecrets} onChange={(event) => setShowSecrets((event.currentTarget as HTMLInputElement).checked)} />
          {t('showSecrets')}
        </label>

        <div class="buttons">
          <button type="submit" class="primary" id="save">
            {t('save')}
          </button>
          <button type="button" id="test-connection" onClick={() => void test()}>
            {t('testConnection')}
          </button>
        </div>
      </form>
      {confirming && (
        <div class="notice warn confirm-credentials" role="alert">
          <strong class="notice-title">{t('confirmCredentialsTitle', confirming)}</strong>
          <p>{t('confirmCredentialsHelp')}</p>
          <div class="buttons">
            <button type="button" id="keep-credentials" onClick={(event) => save(event, form, true)}>
              {t('keepCredentials')}
            </button>
            <button type="button" class="primary" id="drop-credentials" onClick={dropCredentials}>
              {t('dropCredentials')}
            </button>
          </div>
        </div>
      )}
      <StatusLine status={status} />
    </section>
  );
}

/** The page's sections, for the table of contents (headings keep their own ids). */
const SECTIONS: [string, MessageKey][] = [
  ['get-started-heading', 'getStartedHeading'],
  ['connection-heading', 'connectionHeading'],
  ['token-state-heading', 'tokenStateHeading'],
  ['bind-heading', 'bindHeading'],
  ['sites-heading', 'yourSitesHeading'],
  ['addresses-heading', 'overridesHeading'],
  ['panel-heading', 'panelHeading'],
  ['custom-sites-heading', 'customHeading'],
  ['clients-heading', 'clientsHeading'],
  ['client-index-heading', 'indexHeading'],
  ['backup-heading', 'backupHeading'],
  ['privacy-heading', 'privacyHeading'],
];

export function Options() {
  const [view, setView] = useState<SettingsView | undefined>();
  // Bumped when settings are replaced wholesale (an import): the forms start again from them.
  const [revision, setRevision] = useState(0);
  useEffect(() => {
    void sendToBackground('settings:get', {}).then(setView);
    // The popup or the panel may change settings while this page is open ("Hide on this site",
    // "Use on this site"): show the lists as they are now. Forms keep what is being typed.
    return settingsItem.onChanged(() => void sendToBackground('settings:get', {}).then((next) => next && setView(next)));
  }, []);
  if (!view) return <main class="options" aria-busy="true" />;
  const imported = (next: SettingsView) => {
    setView(next);
    setRevision(revision + 1);
  };
  const account = `${revision}:${view.settings.baseUrl}:${view.settings.token}`;
  const serviceHost = hostAndPortOf(view.settings.baseUrl) ?? view.settings.baseUrl;
  const noticeSeen = async () => {
    const answer = await sendToBackground('settings:save', { update: { privacyNoticeSeen: true } });
    if (answer && 'settings' in answer) setView(answer);
  };
  return (
    <main class="options">
      <header class="options-header">
        <h1>{t('optionsTitle')}</h1>
        <GetStartedLink />
      </header>
      {!view.settings.privacyNoticeSeen && <FirstRunNotice serviceHost={serviceHost} onSeen={() => void noticeSeen()} />}
      {view.resetFields.length > 0 && (
        <div class="notice warn" role="alert">
          <strong class="notice-title">{t('settingsReset', fieldList(view.resetFields))}</strong>
        </div>
      )}
      {!!view.repairedFields?.length && (
        <div class="notice warn" role="alert">
          <strong class="notice-title">{t('settingsRepaired', fieldList(view.repairedFields))}</strong>
        </div>
      )}
      {view.unreadable && (
        <div class="notice warn" role="alert">
          <strong class="notice-title">{t('settingsUnreadable')}</strong>
        </div>
      )}
      <GetStarted />
      <nav class="toc" aria-label={t('optNavLabel')}>
        <ul>
          {SECTIONS.map(([id, key]) => (
            <li key={id}>
              <a href={`#${id}`}>{t(key)}</a>
            </li>
          ))}
        </ul>
      </nav>
      <ConnectionSection key={`connection-${revision}`} view={view} onSaved={setView} />
      {/* A new token or service: its state and sites are asked for again. */}
      <AccountSections key={`account-${account}`} hasToken={!!view.settings.token} />
      <SitesSections key={`sites-${account}`} view={view} onSaved={setView} />
      <PanelSection view={view} onSaved={setView} />
      <CustomSitesSection view={view} onSaved={setView} />
      {/* An import may replace the clients: the section asks for them again. */}
      <ClientsSection key={`clients-${revision}`} />
      <ClientIndexSection key={`client-index-${revision}`} serviceHost={serviceHost} />
      <BackupSection onImported={imported} />
      <PrivacySection serviceHost={serviceHost} />
    </main>
  );
}
