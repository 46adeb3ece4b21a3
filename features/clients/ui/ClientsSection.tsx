/**
 * "Torrent clients": add, edit, test, order and remove the user's clients. Every saved client
 * takes part (issue 33): each has a Name every outcome uses; "Your clients" keeps the user's order,
 * which decides only ties; a client may only be read ("Only read this client") or send its copies
 * to another ("Copies go to", with folder pairs saying where that client sees this one's folders).
 * Passwords go to the background and never come back: the list knows only whether one is saved. A
 * client that is not on this machine needs its address granted, asked within the Save (or Test) click.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { clientHostPattern, isLoopbackClient } from '../../../utils/clients/client-hosts';
import type { ClientKind } from '../../../utils/clients/client-types';
import { t, type MessageKey } from '../../../utils/i18n';
import type { ClientForm, ClientProblem, ClientView } from '../clients.messages';
import { sendToBackground } from '../../send-to-background';
import { clientInfoText, clientProblemText, clientSaidText } from './client-text';
import { CLIENT_NAMES } from '../../../utils/clients/client-types';
import { originOf } from '../../../utils/url';
import { CheckWithHint } from '../../../components/CheckWithHint';
import type { FolderPair } from '../../../utils/clients/folder-pairs';

const KINDS: ClientKind[] = ['qbittorrent', 'transmission', 'deluge', 'rtorrent', 'flood'];

/** Where each client's web UI listens by default, as a hint in the address field. */
const DEFAULT_ADDRESSES: Record<ClientKind, string> = {
  qbittorrent: 'http://127.0.0.1:8080',
  transmission: 'http://127.0.0.1:9091',
  deluge: 'http://127.0.0.1:8112',
  // The web server's SCGI mount of rTorrent's XML-RPC (ruTorrent setups and seedboxes).
  rtorrent: 'http://127.0.0.1/RPC2',
  flood: 'http://127.0.0.1:3000',
};

/**
 * What the form says under the address and password for each kind, and what it adds to the
 * skip-check switch's hint (clients that check every cross-seed anyway).
 */
const HINTS: Record<ClientKind, { url: MessageKey; password: MessageKey; skipCheckNote?: MessageKey }> = {
  qbittorrent: { url: 'clientUrlHint', password: 'clientPasswordHint' },
  transmission: { url: 'clientUrlHint', password: 'clientPasswordHint' },
  deluge: { url: 'clientUrlHint', password: 'clientPasswordHint' },
  rtorrent: { url: 'clientUrlHintRtorrent', password: 'clientPasswordHintRtorrent', skipCheckNote: 'clientSkipCheckRtorrentNote' },
  flood: { url: 'clientUrlHintFlood', password: 'clientPasswordHintFlood', skipCheckNote: 'clientSkipCheckFloodNote' },
};

interface FormValues {
  type: ClientKind;
  url: string;
  name: string;
  username: string;
  password: string;
  skipCheckWhenFilesMatch: boolean;
  readOnly: boolean;
  /** '' for this client. */
  copiesTo: string;
  folderPairs: FolderPair[];
}

const EMPTY_PAIR: FolderPair = { from: '', to: '' };
const EMPTY_FORM: FormValues = { type: 'qbittorrent', url: '', name: '', username: '', password: '', skipCheckWhenFilesMatch: false, readOnly: false, copiesTo: '', folderPairs: [] };

/** The default Name the background gives an unnamed client, shown as the field's placeholder. */
function defaultNameHint(type: ClientKind, url: string): string {
  try {
    return `${CLIENT_NAMES[type]} on ${new URL(url.trim()).hostname}`;
  } catch {
    return CLIENT_NAMES[type];
  }
}

type Outcome =
  | { kind: 'idle' }
  | { kind: 'working'; text: string }
  | { kind: 'ok'; text: string }
  | { kind: 'problem'; text: string; said?: string };

function problemOutcome(problem: ClientProblem): Outcome {
  return { kind: 'problem', text: clientProblemText(problem), said: clientSaidText(problem) };
}

/**
 * Asks for the client address's host permission within the click that called it (before any
 * await). The user's own machine is in the manifest already; an address that is not http(s) is
 * left to the background to refuse.
 */
function permissionFor(url: string): Promise<boolean> {
  const pattern = clientHostPattern(url.trim());
  if (!pattern || isLoopbackClient(url.trim())) return Promise.resolve(true);
  return browser.permissions.request({ origins: [pattern] }).catch(() => false);
}

/** What the page says when the background gave no answer at all. */
const NO_ANSWER = { kind: 'bad-answer', detail: 'no answer' } as const;

function describe(client: ClientView): string {
  return client.name;
}

export function ClientsSection() {
  const [clients, setClients] = useState<ClientView[] | undefined>();
  const [form, setForm] = useState<FormValues>(EMPTY_FORM);
  /** The saved client the form edits; undefined while adding one. */
  const [editing, setEditing] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const [invalid, setInvalid] = useState<string | undefined>();
  const urlInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    void sendToBackground('clients:list', {}).then((answer) => answer && setClients(answer.clients));
    void sendToBackground('settings:get', {}).then((answer) => answer && setRenamedCopies(answer.settings.crossSeedRenamedCopies));
  }, []);
  /** "Cross-seed copies whose names differ": every client's, saved as a setting. */
  const [renamedCopies, setRenamedCopies] = useState<boolean | undefined>();
  const saveRenamedCopies = async (on: boolean) => {
    setRenamedCopies(on);
    const answer = await sendToBackground('settings:save', { update: { crossSeedRenamedCopies: on } });
    if (!answer || !('settings' in answer)) {
      setRenamedCopies(!on);
      setOutcome({ kind: 'problem', text: t('fieldRefused', t('settingRenamedCopies')) });
    }
  };

  const edited = clients?.find((client) => client.id === editing);
  const update = (field: keyof FormValues) => (event: Event) => {
    const target = event.currentTarget as HTMLInputElement | HTMLSelectElement;
    setForm({ ...form, [field]: target instanceof HTMLInputElement && target.type === 'checkbox' ? target.checked : target.value });
    if (invalid === field) setInvalid(undefined);
  };

  const message = (values: FormValues): ClientForm => ({
    ...(editing ? { id: editing } : {}),
    type: values.type,
    url: values.url.trim(),
    name: values.name.trim(),
    username: values.username,
    password: values.password,
    skipCheckWhenFilesMatch: values.skipCheckWhenFilesMatch,
    readOnly: values.readOnly,
    copiesTo: values.copiesTo,
    folderPairs: values.copiesTo ? values.folderPairs : [],
  });
  const setPair = (index: number, side: keyof FolderPair) => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement).value;
    setForm({ ...form, folderPairs: form.folderPairs.map((pair, at) => (at === index ? { ...pair, [side]: value } : pair)) });
    if (invalid === 'folderPairs') setInvalid(undefined);
  };
  const chooseTarget = (event: Event) => {
    const copiesTo = (event.currentTarget as HTMLSelectElement).value;
    // A target needs a folder pair: one empty pair to fill in is there as soon as one is chosen.
    setForm({ ...form, copiesTo, folderPairs: copiesTo && !form.folderPairs.length ? [{ ...EMPTY_PAIR }] : form.folderPairs });
    if (invalid === 'copiesTo') setInvalid(undefined);
  };
  /** The clients this one may send its copies to: every other saved one (the background refuses a chain, a loop or one that only reads, in words). */
  const targets = (clients ?? []).filter((client) => client.id !== editing);

  /**
   * Save and Test both need the client's origin: asked for within the click (a permission prompt
   * needs the user's gesture), a refusal said in `refused`'s words, else `run` with the form's values.
   */
  const withOrigin = (refused: 'permissionRefused' | 'clientTestPermissionRefused', working: string, run: (values: FormValues) => Promise<void>) => {
    const values = form;
    void permissionFor(values.url).then(async (granted) => {
      if (!granted) {
        setOutcome({ kind: 'problem', text: t(refused, originOf(values.url.trim()) ?? values.url) });
        return;
      }
      setOutcome({ kind: 'working', text: working });
      await run(values);
    });
  };

  const save = (event: Event) => {
    event.preventDefault();
    withOrigin('permissionRefused', t('saving'), async (values) => {
      const answer = await sendToBackground('clients:save', { client: message(values) });
      if (!answer || 'problem' in answer) {
        const problem = answer?.problem ?? NO_ANSWER;
        setInvalid(problem.field ?? (problem.kind === 'bad-config' ? 'url' : undefined));
        setOutcome(problemOutcome(problem));
        return;
      }
      setClients(answer.clients);
      // The form now shows the saved client, its password kept by the background.
      setEditing(answer.savedId);
      setForm({ ...values, url: answer.clients.find((client) => client.id === answer.savedId)?.url ?? values.url, password: '' });
      setInvalid(undefined);
      setOutcome({ kind: 'ok', text: t('clientSaved') });
    });
  };

  const test = () => {
    withOrigin('clientTestPermissionRefused', t('clientTesting'), async (values) => {
      const answer = await sendToBackground('clients:test', { client: message(values) });
      if (answer && 'info' in answer) setOutcome({ kind: 'ok', text: clientInfoText(answer.info) });
      else {
        const problem = answer?.problem ?? NO_ANSWER;
        setInvalid(problem.field);
        setOutcome(problemOutcome(problem));
      }
    });
  };

  const edit = (client: ClientView) => {
    setEditing(client.id);
    setForm({
      type: client.type,
      url: client.url,
      name: client.name,
      username: client.username,
      password: '',
      skipCheckWhenFilesMatch: client.skipCheckWhenFilesMatch,
      readOnly: client.readOnly,
      copiesTo: client.copiesTo ?? '',
      folderPairs: client.folderPairs.map((pair) => ({ ...pair })),
    });
    setInvalid(undefined);
    setOutcome({ kind: 'idle' });
    urlInput.current?.focus();
  };

  const addAnother = () => {
    setEditing(undefined);
    setForm(EMPTY_FORM);
    setInvalid(undefined);
    setOutcome({ kind: 'idle' });
  };

  /** "Your clients": one place up or down in the user's order (the order decides only ties). */
  const move = async (client: ClientView, index: number, by: -1 | 1) => {
    const answer = await sendToBackground('clients:move', { id: client.id, index: index + by });
    if (!answer) return;
    setClients(answer.clients);
    setOutcome({ kind: 'ok', text: t('clientMoved', describe(client), String(answer.clients.findIndex((entry) => entry.id === client.id) + 1)) });
    // The keyboard user keeps the button they pressed, on the client's new row (or the other one at an end).
    setTimeout(() => {
      const row = document.querySelector<HTMLElement>(`#client-list li[data-id="${client.id}"]`);
      (row?.querySelector<HTMLButtonElement>(by < 0 ? '.move-up:not([disabled])' : '.move-down:not([disabled])') ?? row?.querySelector<HTMLButtonElement>('.edit-client'))?.focus();
    }, 0);
  };

  const remove = async (client: ClientView, index: number) => {
    const answer = await sendToBackground('clients:remove', { id: client.id });
    if (!answer) return;
    if ('problem' in answer) {
      setOutcome(problemOutcome(answer.problem));
      return;
    }
    setClients(answer.clients);
    if (editing === client.id) {
      setEditing(undefined);
      setForm(EMPTY_FORM);
    }
    setOutcome({ kind: 'ok', text: t('clientRemoved') });
    // The keyboard user stays where they were: on the next client's first button, else the heading.
    setTimeout(() => {
      const firsts = document.querySelectorAll<HTMLButtonElement>('#client-list .edit-client');
      (firsts.length ? firsts[Math.min(index, firsts.length - 1)] : document.getElementById('client-list-heading'))?.focus();
    }, 0);
  };

  const field = (name: string) => (invalid === name ? { 'aria-invalid': 'true' as const } : {});
  const { skipCheckNote } = HINTS[form.type];
  return (
    <section class="card" id="clients-section" aria-labelledby="clients-heading">
      <h2 id="clients-heading">{t('clientsHeading')}</h2>
      <p class="hint">{t('clientsIntro')}</p>
      {/* The background checks the address and says what is wrong in the user's language. */}
      <form class="fields" id="client-form" onSubmit={save} noValidate>
        {edited && (
          <p class="editing" id="client-editing">
            {t('clientEditing', describe(edited))}
          </p>
        )}
        <label for="client-type">{t('clientTypeLabel')}</label>
        <select id="client-type" name="client-type" value={form.type} onChange={update('type')} {...field('type')}>
          {KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {CLIENT_NAMES[kind]}
            </option>
          ))}
        </select>

        <label for="client-name">{t('clientNameLabel')}</label>
        <input
          id="client-name"
          name="client-name"
          type="text"
          value={form.name}
          placeholder={defaultNameHint(form.type, form.url)}
          onInput={update('name')}
          maxLength={60}
          spellcheck={false}
          autocomplete="off"
          aria-describedby="client-name-hint"
          {...field('name')}
        />
        <p class="hint" id="client-name-hint">
          {t('clientNameHint')}
        </p>

        <label for="client-url">{t('clientUrlLabel')}</label>
        <input
          id="client-url"
          name="client-url"
          type="url"
          ref={urlInput}
          value={form.url}
          placeholder={DEFAULT_ADDRESSES[form.type]}
          onInput={update('url')}
          spellcheck={false}
          autocomplete="off"
          aria-describedby="client-url-hint"
          {...field('url')}
        />
        <p class="hint" id="client-url-hint">
          {t(HINTS[form.type].url)}
        </p>

        <label for="client-username">{t('clientUsernameLabel')}</label>
        <input
          id="client-username"
          name="client-username"
          type="text"
          value={form.username}
          onInput={update('username')}
          spellcheck={false}
          autocomplete="off"
          {...field('username')}
        />

        <label for="client-password">{t('clientPasswordLabel')}</label>
        <input
          id="client-password"
          name="client-password"
          type="password"
          value={form.password}
          onInput={update('password')}
          spellcheck={false}
          autocomplete="new-password"
          aria-describedby="client-password-hint"
          {...field('password')}
        />
        <p class="hint" id="client-password-hint">
          {edited?.hasPassword ? `${t('clientPasswordKept')} ` : ''}
          {t(HINTS[form.type].password)}
        </p>

        <CheckWithHint
          id="client-skip-check"
          checked={form.skipCheckWhenFilesMatch}
          onChange={(checked) => setForm({ ...form, skipCheckWhenFilesMatch: checked })}
          label={t('clientSkipCheckLabel')}
          hint={skipCheckNote ? `${t('clientSkipCheckHint')} ${t(skipCheckNote)}` : t('clientSkipCheckHint')}
        />

        <CheckWithHint
          id="client-read-only"
          checked={form.readOnly}
          onChange={(checked) => setForm({ ...form, readOnly: checked })}
          label={t('clientReadOnlyLabel')}
          hint={t('clientReadOnlyHint')}
        />

        <label for="client-copies-to">{t('clientCopiesToLabel')}</label>
        <select id="client-copies-to" name="client-copies-to" value={form.copiesTo} onChange={chooseTarget} aria-describedby="client-copies-to-hint" {...field('copiesTo')}>
          <option value="">{t('clientCopiesToThis')}</option>
          {targets.map((client) => (
            <option key={client.id} value={client.id}>
              {client.name}
            </option>
          ))}
          {/* A target no longer saved (an import's) stays shown until the user picks another. */}
          {form.copiesTo && !targets.some((client) => client.id === form.copiesTo) && <option value={form.copiesTo}>{t('clientCopiesToGone')}</option>}
        </select>
        <p class="hint" id="client-copies-to-hint">
          {t('clientCopiesToHint')}
        </p>
        {form.copiesTo && (
          <fieldset class="folder-pairs" id="client-folder-pairs" aria-describedby="client-folder-pairs-hint" {...field('folderPairs')}>
            <legend>{t('clientFolderPairsLegend')}</legend>
            <p class="hint" id="client-folder-pairs-hint">
              {t('clientFolderPairsHint')}
            </p>
            {form.folderPairs.map((pair, index) => (
              <div class="folder-pair" key={index} data-index={index}>
                <label for={`client-pair-from-${index}`}>{t('clientFolderFromLabel')}</label>
                <input id={`client-pair-from-${index}`} class="pair-from" type="text" value={pair.from} placeholder="/downloads" onInput={setPair(index, 'from')} spellcheck={false} autocomplete="off" />
                <label for={`client-pair-to-${index}`}>{t('clientFolderToLabel')}</label>
                <input id={`client-pair-to-${index}`} class="pair-to" type="text" value={pair.to} placeholder="/mnt/nas/downloads" onInput={setPair(index, 'to')} spellcheck={false} autocomplete="off" />
                {form.folderPairs.length > 1 && (
                  <button
                    type="button"
                    class="remove-pair link-button"
                    aria-label={t('clientRemovePairLabel', String(index + 1))}
                    onClick={() => setForm({ ...form, folderPairs: form.folderPairs.filter((_, at) => at !== index) })}
                  >
                    {t('clientRemove')}
                  </button>
                )}
              </div>
            ))}
            <button type="button" id="add-folder-pair" onClick={() => setForm({ ...form, folderPairs: [...form.folderPairs, { ...EMPTY_PAIR }] })}>
              {t('clientAddFolderPair')}
            </button>
          </fieldset>
        )}

        <div class="buttons">
          <button type="submit" class="primary" id="save-client">
            {t('clientSave')}
          </button>
          <button type="button" id="test-client" onClick={test}>
            {t('clientTest')}
          </button>
          {editing && (
            <button type="button" id="add-another-client" onClick={addAnother}>
              {t('clientAddAnother')}
            </button>
          )}
        </div>
      </form>
      <ClientOutcome outcome={outcome} />

      <h3 id="client-list-heading" tabIndex={-1}>
        {t('clientListHeading')}
      </h3>
      {clients?.length ? (
        <ul class="host-list client-list" id="client-list" aria-labelledby="client-list-heading">
          {clients.map((client, index) => {
            const target = client.copiesTo ? clients.find((other) => other.id === client.copiesTo) : undefined;
            return (
              <li key={client.id} class={`client${client.readOnly ? ' read-only' : ''}`} data-id={client.id} data-type={client.type}>
                <span class="client-name">
                  <strong class="client-title">{client.name}</strong> <span class="muted">{CLIENT_NAMES[client.type]}</span> <code class="client-url">{client.url}</code>{' '}
                  <span class="muted">{client.username}</span>
                  {!client.hasPassword && <span class="muted"> · {t('clientNoPassword')}</span>}
                  {client.readOnly && <span class="tag client-read-only"> {t('clientReadOnlyTag')}</span>}
                  {client.copiesTo && <span class="muted client-copies-to"> · {t('clientCopiesToShort', target?.name ?? t('clientCopiesToGone'))}</span>}
                </span>
                <span class="client-actions">
                  <button type="button" class="edit-client" aria-label={t('clientEditLabel', describe(client))} onClick={() => edit(client)}>
                    {t('clientEdit')}
                  </button>
                  <button type="button" class="move-up" aria-label={t('clientMoveUpLabel', describe(client))} disabled={index === 0} onClick={() => void move(client, index, -1)}>
                    {t('clientMoveUp')}
                  </button>
                  <button type="button" class="move-down" aria-label={t('clientMoveDownLabel', describe(client))} disabled={index === clients.length - 1} onClick={() => void move(client, index, 1)}>
                    {t('clientMoveDown')}
                  </button>
                  <button type="button" class="remove-client" aria-label={t('clientRemoveLabel', describe(client))} onClick={() => void remove(client, index)}>
                    {t('clientRemove')}
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      ) : (
        clients && <p class="muted" id="client-none">{t('clientNone')}</p>
      )}

      {renamedCopies !== undefined && (
        <CheckWithHint
          id="cross-seed-renamed-copies"
          checked={renamedCopies}
          onChange={(checked) => void saveRenamedCopies(checked)}
          label={t('settingRenamedCopies')}
          hint={t('settingRenamedCopiesHint')}
        />
      )}
    </section>
  );
}

/** What the last Save or Test came to, the client's own words as plain text beneath. */
function ClientOutcome({ outcome }: { outcome: Outcome }) {
  return (
    <div class={`status client-outcome ${outcome.kind === 'idle' ? '' : outcome.kind}`} id="client-status" role="status" aria-live="polite">
      {outcome.kind !== 'idle' && <p class="client-outcome-text">{outcome.text}</p>}
      {outcome.kind === 'problem' && outcome.said && <p class="client-said">{outcome.said}</p>}
    </div>
  );
}
