/**
 * One site's "Ask this site by pieces hash" in its fieldset of "Your sites' addresses"
 * (features/sites/ui/SitesSections.tsx): the switch, what it sends, the API's path, and "Test".
 * The switch and the path are saved with the fieldset's other values; the test uses what is typed.
 */
import { t } from '../../../utils/i18n';
import { CLIENT_NAMES, type ClientKind } from '../../../utils/clients/client-types';
import { StatusLine, type Status } from '../../../components/StatusLine';
import type { PiecesHashTestView } from '../pieces-hash.messages';

export interface PiecesHashDraft {
  on: boolean;
  path: string;
}

/** A test's answer in the user's words (`name`: the site's). */
export function piecesHashTestStatus(view: PiecesHashTestView | undefined, name: string): Status {
  if (!view) return { kind: 'problem', text: t('piecesHashNoAnswer') };
  switch (view.kind) {
    case 'works':
      return { kind: 'ok', text: t('piecesHashWorks', name) };
    case 'wrong-passkey':
      return { kind: 'problem', text: t('piecesHashWrongPasskey', name) };
    case 'no-api':
      return { kind: 'problem', text: t('piecesHashNoApi', name) };
    case 'rate-limited':
      return { kind: 'problem', text: view.retryAfterSeconds === undefined ? t('piecesHashRateLimited', name) : t('piecesHashRateLimitedFor', name, String(view.retryAfterSeconds)) };
    case 'needs-passkey':
      return { kind: 'problem', text: t('piecesHashNeedsPasskey') };
    case 'bad-passkey':
      return { kind: 'problem', text: t('piecesHashBadPasskey') };
    case 'bad-path':
      return { kind: 'problem', text: t('piecesHashPathBad') };
    case 'other-host':
      return { kind: 'problem', text: t('piecesHashPathOtherHost', view.host) };
    case 'no-permission':
      return { kind: 'problem', text: t('piecesHashNoPermission', view.origin) };
    case 'not-nexusphp':
      return { kind: 'problem', text: t('piecesHashNotNexus') };
    case 'unreachable':
      return { kind: 'problem', text: t('piecesHashUnreachable', name) };
    case 'site-error':
      return { kind: 'problem', text: t('piecesHashSiteError', name, String(view.status)) };
    case 'refused':
      return { kind: 'problem', text: t('piecesHashRefused', name, String(view.ret)) };
  }
}

export function PiecesHashFields({
  sid,
  name,
  draft,
  definitionPath,
  pathError,
  test,
  clientWithoutPieces,
  onChange,
  onTest,
}: {
  sid: number;
  name: string;
  draft: PiecesHashDraft;
  /** The site definition's path (the placeholder: what an empty field means). */
  definitionPath: string;
  /** The field's problem in words, after a save refused it. */
  pathError?: string;
  test: Status;
  /** The user's default client when it gives no piece hashes (Transmission, Deluge). */
  clientWithoutPieces?: ClientKind;
  onChange: (change: Partial<PiecesHashDraft>) => void;
  onTest: () => void;
}) {
  const hint = `pieces-hash-hint-${sid}`;
  const note = `pieces-hash-client-note-${sid}`;
  return (
    <div class="pieces-hash" data-sid={sid}>
      <label class="check">
        <input
          type="checkbox"
          id={`pieces-hash-${sid}`}
          checked={draft.on}
          aria-describedby={clientWithoutPieces ? `${hint} ${note}` : hint}
          onChange={(event) => onChange({ on: (event.currentTarget as HTMLInputElement).checked })}
        />
        {t('piecesHashAsk')}
      </label>
      <p class="hint" id={hint}>
        {t('piecesHashHint', name)}
      </p>
      {clientWithoutPieces && (
        <p class="hint warn-text" id={note}>
          {t('piecesHashClientNote', CLIENT_NAMES[clientWithoutPieces] ?? clientWithoutPieces)}
        </p>
      )}
      <label for={`pieces-hash-path-${sid}`}>{t('piecesHashPathLabel')}</label>
      <input
        id={`pieces-hash-path-${sid}`}
        type="text"
        inputMode="url"
        value={draft.path}
        placeholder={definitionPath}
        autocomplete="off"
        spellcheck={false}
        aria-invalid={!!pathError}
        aria-describedby={pathError ? `pieces-hash-path-error-${sid}` : undefined}
        onInput={(event) => onChange({ path: (event.currentTarget as HTMLInputElement).value })}
      />
      {pathError && (
        <p class="status problem field-problem" id={`pieces-hash-path-error-${sid}`}>
          {pathError}
        </p>
      )}
      <div class="buttons">
        <button type="button" id={`pieces-hash-test-${sid}`} onClick={onTest} disabled={test.kind === 'working'}>
          {t('piecesHashTest')}
        </button>
      </div>
      <StatusLine status={test} id={`pieces-hash-test-status-${sid}`} />
    </div>
  );
}
