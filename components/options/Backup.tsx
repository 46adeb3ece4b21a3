/** Export and import of the settings: a JSON file, the credentials in it only when asked for. */
import { useState } from 'preact/hooks';
import { t } from '../../utils/i18n';
import type { BackgroundProtocol, SettingsView } from '../../utils/messages';
import { sendToBackground } from '../../utils/send';
import { fieldList } from './fields';
import { IDLE, StatusLine, type Status } from './StatusLine';

/** A settings file is a few kilobytes; anything far larger is not one, and is not read into memory. */
const MAX_IMPORT_BYTES = 1024 * 1024;

type ImportAnswer = BackgroundProtocol['settings:import']['response'];
type ImportOutcome = { kind: 'none' } | { kind: 'working' } | { kind: 'done'; answer: ImportAnswer };

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
    setOutcome({ kind: 'done', answer });
    if (answer.view) onImported(answer.view);
  };

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
      <ImportResult outcome={outcome} />
    </section>
  );
}

function ImportResult({ outcome }: { outcome: ImportOutcome }) {
  if (outcome.kind === 'none') return <p class="status" id="import-result" role="status" aria-live="polite" />;
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
