import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { FailureNotice } from '../../components/FailureNotice';
import { formatNumber, t } from '../../utils/i18n';
import type { SettingsView } from '../../utils/messages';
import { sendToBackground } from '../../utils/send';
import { isKnownServiceOrigin, normaliseBaseUrl, type Settings } from '../../utils/settings';
import type { ServiceFailure } from '../../utils/service/errors';

type Status =
  | { kind: 'idle' }
  | { kind: 'working'; text: string }
  | { kind: 'ok'; text: string }
  | { kind: 'problem'; text: string }
  | { kind: 'failure'; failure: ServiceFailure };

type ConnectionForm = Pick<Settings, 'baseUrl' | 'token' | 'appId' | 'secret'>;

const FIELD_LABELS: Record<string, string> = {};

function StatusLine({ status }: { status: Status }) {
  if (status.kind === 'idle') return <p class="status" role="status" aria-live="polite" />;
  if (status.kind === 'failure') return <FailureNotice failure={status.failure} />;
  return (
    <p class={`status ${status.kind}`} role="status" aria-live="polite">
      {status.text}
    </p>
  );
}

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

  const save = (event: Event) => {
    event.preventDefault();
    const baseUrl = normaliseBaseUrl(form.baseUrl);
    if (!baseUrl) {
      setStatus({ kind: 'problem', text: t('badBaseUrl') });
      return;
    }
    // A service on another origin needs its host permission; ask within this click, before any await.
    const permission = isKnownServiceOrigin(baseUrl)
      ? Promise.resolve(true)
      : browser.permissions.request({ origins: [`${new URL(baseUrl).origin}/*`] }).catch(() => false);
    void permission.then(async (granted) => {
      if (!granted) {
        setStatus({ kind: 'problem', text: t('permissionRefused', new URL(baseUrl).origin) });
        return;
      }
      setStatus({ kind: 'working', text: t('saving') });
      const answer = await sendToBackground('settings:save', {
        update: { baseUrl, token: form.token.trim(), appId: form.appId.trim(), secret: form.secret.trim() },
      });
      if ('refused' in answer) {
        setStatus({ kind: 'problem', text: t('fieldRefused', FIELD_LABELS[answer.refused] ?? answer.refused) });
        return;
      }
      setForm({ ...form, baseUrl });
      setStatus({ kind: 'ok', text: t('saved') });
      onSaved(answer);
    });
  };

  const test = async () => {
    setStatus({ kind: 'working', text: t('testing') });
    const answer = await sendToBackground('connection:test', { baseUrl: form.baseUrl, token: form.token });
    if (answer.ok) setStatus({ kind: 'ok', text: t('testOk', formatNumber(answer.siteCount ?? 0)) });
    else if (answer.error) setStatus({ kind: 'failure', failure: answer.error });
  };

  FIELD_LABELS.baseUrl = t('labelBaseUrl');
  FIELD_LABELS.token = t('labelToken');
  FIELD_LABELS.appId = t('labelAppId');
  FIELD_LABELS.secret = t('labelSecret');

  return (
    <section class="card" aria-labelledby="connection-heading">
      <h2 id="connection-heading">{t('connectionHeading')}</h2>
      <form onSubmit={save} class="fields">
        <label for="baseUrl">{t('labelBaseUrl')}</label>
        <input id="baseUrl" name="baseUrl" type="url" value={form.baseUrl} onInput={update('baseUrl')} spellcheck={false} autocomplete="off" />
        <p class="hint">{t('hintBaseUrl')}</p>

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
      <StatusLine status={status} />
    </section>
  );
}

export function Options() {
  const [view, setView] = useState<SettingsView | undefined>();
  useEffect(() => {
    void sendToBackground('settings:get', {}).then(setView);
  }, []);
  if (!view) return <main class="options" aria-busy="true" />;
  return (
    <main class="options">
      <h1>{t('optionsTitle')}</h1>
      {view.resetFields.length > 0 && (
        <div class="notice warn" role="alert">
          <strong class="notice-title">{t('settingsReset', view.resetFields.map((field) => FIELD_LABELS[field] ?? field).join(', '))}</strong>
        </div>
      )}
      <ConnectionSection view={view} onSaved={setView} />
    </main>
  );
}
