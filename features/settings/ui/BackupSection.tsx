/** Export and import of the settings: a JSON file, the credentials in it only when asked for. */
import type { Reply } from '../../protocol';
import { useState } from 'preact/hooks';
import { t } from '../../../utils/i18n';
import { browser } from 'wxt/browser';
import type { ClientPreview, ImportPreview, PreviewValue, SettingsView } from '../settings.messages';
import { sendToBackground } from '../../send-to-background';
import { clientRuleText } from '../../clients/ui/client-text';
import type { ClientRule } from '../../clients/client-rules';
import type { CopiesSetting } from '../../clients/client-import';
import { CLIENT_NAMES } from '../../../utils/clients/client-types';
import { siteForSid } from '../../../utils/sites/catalog';
import { fieldLabel, fieldList, listOf } from '../../../components/field-names';
import { IDLE, StatusLine, type Status } from '../../../components/StatusLine';
import { permissionPattern } from '../../../utils/permission-pattern';

/** A settings file is a few kilobytes; anything far larger is not one, and is not read into memory. */
const MAX_IMPORT_BYTES = 1024 * 1024;

type ImportAnswer = Reply<'settings:import'>;
type ImportOutcome =
  | { kind: 'none' }
  | { kind: 'working' }
  /** Read and checked, nothing applied yet: the changes wait for the user's Apply. */
  | { kind: 'preview'; data: unknown; answer: ImportAnswer & { preview: ImportPreview } }
  | { kind: 'done'; answer: ImportAnswer };

export function exportFileName(now: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `reseed-lens-settings-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.json`;
}

function download(json: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the click; the URL is not needed after this turn.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Reads the chosen file as JSON; undefined when it is not JSON (or too large to be ours). */
async function readJsonFile(file: File): Promise<{ data: unknown } | undefined> {
  if (file.size > MAX_IMPORT_BYTES) return undefined;
  try {
    return { data: JSON.parse(await file.text()) as unknown };
  } catch {
    return undefined;
  }
}

export function BackupSection({ onImported }: { onImported: (view: SettingsView) => void }) {
  const [withCredentials, setWithCredentials] = useState(false);
  const [exportStatus, setExportStatus] = useState<Status>(IDLE);
  const [outcome, setOutcome] = useState<ImportOutcome>({ kind: 'none' });

  const exportNow = async () => {
    const answer = await sendToBackground('settings:export', { includeCredentials: withCredentials });
    if (!answer?.json) {
      setExportStatus({ kind: 'problem', text: t('errBadRequest') });
      return;
    }
    const fileName = exportFileName(new Date());
    download(answer.json, fileName);
    setExportStatus({ kind: 'ok', text: t('exportDone', fileName) });
  };

  const importFile = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    setOutcome({ kind: 'working' });
    const read = await readJsonFile(file);
    // Let the same file be chosen again (after fixing it, say): a change event needs a new value.
    input.value = '';
    const answer: ImportAnswer = read
      ? ((await sendToBackground('settings:import', { data: read.data })) ?? { imported: [], skipped: [], error: 'unreadable' })
      : { imported: [], skipped: [], error: 'unreadable' };
    if (read && answer.preview && answer.imported.length > 0) setOutcome({ kind: 'preview', data: read.data, answer: answer as ImportAnswer & { preview: ImportPreview } });
    else setOutcome({ kind: 'done', answer });
  };

  /**
   * Apply, on the user's click: a new service address and the clients' addresses not granted yet
   * get their permission asked first, within the click, in one prompt.
   */
  const apply = (data: unknown, preview: ImportPreview, keepCredentials: boolean, confirmSiteHosts: number[], confirmClientTargets: string[]) => {
    const service = preview.service;
    const origins = [
      ...(service && !service.known && !service.granted ? [permissionPattern(service.baseUrl)] : []),
      ...(preview.clientPermissions ?? []),
    ];
    const permission = origins.length ? browser.permissions.request({ origins }).catch(() => false) : Promise.resolve(true);
    void permission.then(async (granted) => {
      if (!granted) {
        setImportProblem(t('permissionRefused', origins.map((origin) => origin.replace(/\/\*$/, '')).join(', ')));
        return;
      }
      setImportProblem(undefined);
      setOutcome({ kind: 'working' });
      const answer = (await sendToBackground('settings:import', { data, apply: true, keepCredentials, confirmSiteHosts, confirmClientTargets })) ?? {
        imported: [],
        skipped: [],
        error: 'unreadable',
      };
      setOutcome({ kind: 'done', answer });
      if (answer.view) onImported(answer.view);
    });
  };
  const [importProblem, setImportProblem] = useState<string | undefined>();

  return (
    <section class="card" id="backup-section" aria-labelledby="backup-heading">
      <h2 id="backup-heading">{t('backupHeading')}</h2>
      <label class="check">
        <input
          type="checkbox"
          id="export-credentials"
          checked={withCredentials}
          onChange={(event) => setWithCredentials((event.currentTarget as HTMLInputElement).checked)}
          aria-describedby={withCredentials ? 'export-credentials-warning' : undefined}
        />
        {t('exportIncludeCredentials')}
      </label>
      {withCredentials && (
        <p class="hint warn-text" id="export-credentials-warning">
          {t('exportCredentialsWarning')}
        </p>
      )}
      <div class="buttons">
        <button type="button" id="export" onClick={() => void exportNow()}>
          {t('exportButton')}
        </button>
      </div>
      <StatusLine status={exportStatus} id="export-status" />

      <div class="import">
        <label for="import-file">{t('importLabel')}</label>
        <input
          type="file"
          id="import-file"
          accept="application/json,.json"
          aria-describedby="import-hint"
          onChange={(event) => void importFile(event.currentTarget as HTMLInputElement)}
        />
        <p class="hint" id="import-hint">
          {t('importHint')}
        </p>
      </div>
      {outcome.kind === 'preview' ? (
        <ImportPreviewCard
          answer={outcome.answer}
          problem={importProblem}
          onApply={(keepCredentials, confirmSiteHosts, confirmClientTargets) => apply(outcome.data, outcome.answer.preview, keepCredentials, confirmSiteHosts, confirmClientTargets)}
          onCancel={() => {
            setImportProblem(undefined);
            setOutcome({ kind: 'none' });
          }}
        />
      ) : (
        <ImportResult outcome={outcome} />
      )}
    </section>
  );
}

/** "NAS: qBittorrent http://127.0.0.1:8080 (reseed, password set, only read)". */
function shownClient(client: ClientPreview): string {
  const notes = [client.username, client.hasPassword ? t('valueSet') : t('clientNoPassword'), client.readOnly ? t('clientReadOnlyTag') : ''].filter(Boolean);
  return `${client.name}: ${CLIENT_NAMES[client.type] ?? client.type} ${client.url} (${notes.join(', ')})`;
}

/** Where a client's copies go, as an import preview shows it: "This client", or "Seedbox (/downloads → /mnt/nas/downloads)". */
function shownCopies(setting: CopiesSetting): string {
  if (!setting.copiesTo) return t('clientCopiesToThis');
  const pairs = setting.folderPairs.map((pair) => `${pair.from} → ${pair.to}`).join('; ');
  return pairs ? `${setting.copiesTo} (${pairs})` : setting.copiesTo;
}

/** What an import repaired in the file's clients, in words. */
function importRepairText(rule: ClientRule): string {
  if (rule.rule === 'same-name') return t('importClientRenamed', rule.name);
  if (rule.rule === 'copies-target-missing') return t('importClientTargetDropped', rule.client);
  return `${clientRuleText(rule)} ${t('importClientTargetKept')}`;
}

/** A settings value in the user's words, as plain text. */
function shownValue(field: string, value: PreviewValue): string {
  if (value === null || value === undefined || value === '') return t('valueNone');
  if (field === 'clients' && Array.isArray(value)) return value.length ? (value as ClientPreview[]).map(shownClient).join('; ') : t('valueNone');
  if (typeof value === 'boolean') return value ? t('valueYes') : t('valueNo');
  if (typeof value === 'object' && !Array.isArray(value) && 'credential' in value) return value.credential ? t('valueSet') : t('valueNotSet');
  const siteName = (sid: number | string) => siteForSid(Number(sid))?.nickname ?? `#${sid}`;
  if (Array.isArray(value)) {
    if (!value.length) return t('valueNone');
    return listOf(field === 'heldSites' ? (value as number[]).map((sid) => siteName(sid)) : value.map(String));
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, { host?: string; scheme?: string }>);
    if (!entries.length) return t('valueNone');
    // Passkeys and API keys come masked from the background (features/settings/settings.feature.ts): only which sites have one.
    if (field === 'sitePasskeys' || field === 'siteApiKeys') return entries.map(([sid]) => `${siteName(sid)}: ${t('valueSet')}`).join('; ');
    // Asked by pieces hash or not, with the path the user moved its API to.
    if (field === 'piecesHashSites') {
      return (entries as [string, { on?: boolean; path?: string }][]).map(([sid, site]) => `${siteName(sid)}: ${[site?.on ? t('valueYes') : t('valueNo'), site?.path].filter(Boolean).join(' ')}`).join('; ');
    }
    // Host overrides move a site's links: each one is named with its site.
    return entries.map(([sid, override]) => `${siteName(sid)}: ${[override?.scheme, override?.host].filter(Boolean).join('://') || t('valueNone')}`).join('; ');
  }
  return String(value);
}

/** What the file would change, before anything is applied; Apply and Cancel. */
function ImportPreviewCard({
  answer,
  problem,
  onApply,
  onCancel,
}: {
  answer: ImportAnswer & { preview: ImportPreview };
  problem?: string;
  onApply: (keepCredentials: boolean, confirmSiteHosts: number[], confirmClientTargets: string[]) => void;
  onCancel: () => void;
}) {
  const [keep, setKeep] = useState(false);
  // Each site's new address waits for its own yes: none is ticked to begin with.
  const [confirmed, setConfirmed] = useState<number[]>([]);
  // So does each client's new "Copies go to" or folder pairs (by the client's Name).
  const [targetsConfirmed, setTargetsConfirmed] = useState<string[]>([]);
  const { preview } = answer;
  const service = preview.service;
  const carried = preview.carriedCredentials.length > 0;
  const moves = preview.siteHosts ?? [];
  const targets = preview.clientTargets ?? [];
  const repairs = preview.clientRepairs ?? [];
  const anything = preview.changes.length > 0 || moves.length > 0 || targets.length > 0;
  return (
    <div class="notice info import-preview" id="import-result" role="region" aria-labelledby="import-preview-title">
      <strong class="notice-title" id="import-preview-title">
        {anything ? t('importPreviewTitle') : t('importPreviewNothing')}
      </strong>
      {anything && (
        <dl class="import-changes" id="import-preview">
          {preview.changes.map((change) => (
            <div key={change.field} class="import-change" data-field={change.field}>
              <dt>{fieldLabel(change.field)}</dt>
              <dd>
                <span class="before">{shownValue(change.field, change.before)}</span> → <span class="after">{shownValue(change.field, change.after)}</span>
              </dd>
            </div>
          ))}
          {moves.map((move) => (
            <div key={`site-host-${move.sid}`} class="import-change site-host" data-field="siteHost" data-sid={move.sid}>
              <dt>{t('importSiteHostLabel')}</dt>
              <dd>
                <span class="site">{move.name}</span>: <span class="before">{move.from || t('valueNone')}</span> → <span class="after">{move.to}</span>
                <p class="warn-text site-host-warning">
                  {move.owner ? t('importSiteHostOtherSite', move.to, move.owner, move.name) : t('importSiteHostNew', move.name, move.to)}
                </p>
                <label class="check">
                  <input
                    type="checkbox"
                    id={`import-site-host-${move.sid}`}
                    checked={confirmed.includes(move.sid)}
                    onChange={(event) => {
                      const on = (event.currentTarget as HTMLInputElement).checked;
                      setConfirmed((list) => (on ? [...list.filter((sid) => sid !== move.sid), move.sid] : list.filter((sid) => sid !== move.sid)));
                    }}
                  />
                  {move.owner ? t('importSiteHostConfirmLinks', move.to, move.name) : t('importSiteHostConfirm', move.to, move.name)}
                </label>
              </dd>
            </div>
          ))}
          {targets.map((change, index) => (
            <div key={`client-target-${change.client}`} class="import-change client-target" data-field="clientTarget" data-client={change.client}>
              <dt>{t('importClientTargetLabel')}</dt>
              <dd>
                <span class="client">{change.client}</span>: <span class="before">{shownCopies(change.before)}</span> → <span class="after">{shownCopies(change.after)}</span>
                {change.refused ? (
                  <p class="warn-text client-target-refused">{clientRuleText(change.refused)}</p>
                ) : (
                  <label class="check">
                    <input
                      type="checkbox"
                      id={`import-client-target-${index}`}
                      checked={targetsConfirmed.includes(change.client)}
                      onChange={(event) => {
                        const on = (event.currentTarget as HTMLInputElement).checked;
                        setTargetsConfirmed((list) => (on ? [...list.filter((name) => name !== change.client), change.client] : list.filter((name) => name !== change.client)));
                      }}
                    />
                    {t('importClientTargetConfirm', change.client)}
                  </label>
                )}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {repairs.length > 0 && (
        <ul class="import-client-repairs warn-text">
          {repairs.map((repair, index) => (
            <li key={index}>{importRepairText(repair)}</li>
          ))}
        </ul>
      )}
      {answer.skipped.length > 0 && <p class="import-skipped">{t('importSkipped', fieldList(answer.skipped))}</p>}
      {service && (
        <p class="warn-text import-service" id="import-service-warning">
          {t('importMovesService', service.baseUrl)} {service.plainHttp && t('plainHttpWarning')}
        </p>
      )}
      {carried && (
        <label class="check">
          <input type="checkbox" id="import-keep-credentials" checked={keep} onChange={(event) => setKeep((event.currentTarget as HTMLInputElement).checked)} />
          {t('importKeepCredentials', service?.baseUrl ?? '')}
        </label>
      )}
      {problem && (
        <p class="warn-text" role="alert">
          {problem}
        </p>
      )}
      <div class="buttons">
        <button type="button" class="primary" id="import-apply" onClick={() => onApply(carried && keep, confirmed, targetsConfirmed)} disabled={!anything}>
          {t('importApply')}
        </button>
        <button type="button" id="import-cancel" onClick={onCancel}>
          {t('cancel')}
        </button>
      </div>
    </div>
  );
}

function ImportResult({ outcome }: { outcome: ImportOutcome }) {
  if (outcome.kind === 'none' || outcome.kind === 'preview') return <p class="status" id="import-result" role="status" aria-live="polite" />;
  if (outcome.kind === 'working')
    return (
      <p class="status working" id="import-result" role="status" aria-live="polite">
        {t('importing')}
      </p>
    );
  const { answer } = outcome;
  if (answer.error) {
    return (
      <div class="notice error" id="import-result" role="alert" data-error={answer.error}>
        <strong class="notice-title">{answer.error === 'not-ours' ? t('importNotOurs') : t('importUnreadable')}</strong>
        <p class="notice-action">{t('importAct')}</p>
      </div>
    );
  }
  const nothing = !answer.imported.length;
  return (
    <div class={`notice ${nothing ? 'warn' : 'ok'}`} id="import-result" role="status" aria-live="polite">
      <strong class="notice-title">{nothing ? t('importNothing') : t('importDone')}</strong>
      {!nothing && <p class="import-imported">{t('importImported', fieldList(answer.imported))}</p>}
      {answer.skipped.length > 0 && <p class="import-skipped">{t('importSkipped', fieldList(answer.skipped))}</p>}
    </div>
  );
}
