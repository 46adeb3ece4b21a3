/**
 * The token's life: its state as the service tells it (activated, valid until), and binding it to
 * an account on a recommended site, which is what activates a new token (service-notes.md).
 */
import type { Reply } from '../../protocol';
import { useEffect, useRef, useState } from 'preact/hooks';
import { FailureNotice, Notice } from '../../../components/FailureNotice';
import { describeFailure, formatDateTime, friendlyServiceMessage, t, type MessageKey } from '../../../utils/i18n';
import type { ProfileView, RecommendedSiteView } from '../account.messages';
import type { ServiceFailure } from '../../../utils/iyuu/service-errors';
import { askForBinding } from '../../../utils/data-collection';
import { sendToBackground } from '../../send-to-background';

type ProfileState =
  | { kind: 'loading' }
  | { kind: 'no-token' }
  | { kind: 'ok'; profile: ProfileView }
  | { kind: 'failure'; failure: ServiceFailure };

/** The router answers nothing at all to a message it refuses: say so as a refused request. */
const REFUSED: ServiceFailure = { kind: 'bad-request', detail: 'the background refused the message' };

function profileState(answer: Reply<'profile:get'> | undefined): ProfileState {
  if (answer?.profile) return { kind: 'ok', profile: answer.profile };
  if (answer?.error?.kind === 'no-credentials') return { kind: 'no-token' };
  return { kind: 'failure', failure: answer?.error ?? REFUSED };
}

/** Token state and binding, sharing what the service said about the token. */
export function AccountSections({ hasToken, now = Date.now }: { hasToken: boolean; now?: () => number }) {
  const [state, setState] = useState<ProfileState>(hasToken ? { kind: 'loading' } : { kind: 'no-token' });
  const alive = useRef(true);

  const load = async () => {
    setState({ kind: 'loading' });
    const answer = await sendToBackground('profile:get', {});
    if (alive.current) setState(profileState(answer));
  };

  useEffect(() => {
    alive.current = true;
    if (hasToken) void load();
    return () => {
      alive.current = false;
    };
  }, [hasToken]);

  return (
    <>
      <TokenState state={state} now={now()} onRefresh={hasToken ? () => void load() : undefined} />
      <BindSection
        state={state}
        onBound={(profile) => (profile ? setState({ kind: 'ok', profile }) : void load())}
      />
    </>
  );
}

function TokenState({ state, now, onRefresh }: { state: ProfileState; now: number; onRefresh?: () => void }) {
  const profile = state.kind === 'ok' ? state.profile : undefined;
  const expired = !!profile?.expiresAt && !profile.lifetime && profile.expiresAt < now;
  return (
    <section class="card" id="token-state-section" aria-labelledby="token-state-heading">
      <div class="section-head">
        <h2 id="token-state-heading">{t('tokenStateHeading')}</h2>
        {onRefresh && (
          <button type="button" id="token-refresh" onClick={onRefresh} aria-label={t('tokenRefreshLabel')} disabled={state.kind === 'loading'}>
            {t('refresh')}
          </button>
        )}
      </div>
      <div id="token-state" aria-live="polite" aria-busy={state.kind === 'loading'}>
        {state.kind === 'no-token' && <p class="muted">{t('tokenStateNoToken')}</p>}
        {state.kind === 'loading' && <p class="muted">{t('tokenStateChecking')}</p>}
        {state.kind === 'failure' && <FailureNotice failure={state.failure} />}
        {profile && (
          <>
            <dl class="facts">
              <dt>{t('tokenStateLabel')}</dt>
              <dd class={profile.activated ? 'token-activated' : 'token-unbound'} data-activated={String(profile.activated)}>
                <span aria-hidden="true">{profile.activated ? '✓ ' : '! '}</span>
                {profile.activated ? t('tokenActivated') : t('tokenNotBound')}
              </dd>
              <dt>{t('tokenValidUntil')}</dt>
              <dd class={`token-expiry${expired ? ' expired' : ''}`}>
                {profile.lifetime
                  ? t('tokenLifetime')
                  : profile.expiresAt
                    ? `${formatDateTime(profile.expiresAt)}${expired ? ` (${t('tokenExpiredShort')})` : ''}`
                    : t('tokenNoExpiry')}
              </dd>
            </dl>
            {!profile.activated && <p class="hint">{t('tokenNotBoundHelp')}</p>}
            {expired && profile.expiresAt && <Notice kind="warn" title={t('tokenExpired', formatDateTime(profile.expiresAt))} />}
          </>
        )}
      </div>
    </section>
  );
}

/** The bind refusals the service is known to give, in our words with what to do next. */
const BIND_REFUSALS: [RegExp, MessageKey, MessageKey][] = [
  [/其他\s*token|已被.{0,12}绑定|another token/i, 'bindTakenTitle', 'bindTakenAct'],
  [/已(经)?绑定|重复|already bound/i, 'bindAlreadyBoundTitle', 'bindAlreadyBoundAct'],
  [/不在.{0,6}推荐|推荐站点列表|not recommended/i, 'bindNotRecommendedTitle', 'bindNotRecommendedAct'],
  [/校验|验证|不匹配|不正确|用户不存在|passkey|uid|user/i, 'bindRejectedTitle', 'bindRejectedAct'],
];

export function describeBindFailure(failure: ServiceFailure): { title: string; action: string; friendly?: string } {
  const message = failure.serviceMessage;
  if (failure.kind === 'bad-request' && message) {
    const known = BIND_REFUSALS.find(([pattern]) => pattern.test(message));
    if (known) return { title: t(known[1]), action: t(known[2]) };
  }
  const described = describeFailure(failure);
  const friendly = friendlyServiceMessage(message);
  return { ...described, friendly: friendly && friendly !== described.title ? friendly : undefined };
}

function BindFailure({ failure }: { failure: ServiceFailure }) {
  const { title, action, friendly } = describeBindFailure(failure);
  return (
    <div class="notice error" role="alert" id="bind-result" data-kind={failure.kind}>
      <strong class="notice-title">{title}</strong>
      <p class="notice-action">{action}</p>
      {failure.serviceMessage && (
        <p class="service-message">
          {friendly ? `${friendly} ` : ''}
          <span class="raw">
            {t('serviceSaid')} “{failure.serviceMessage}”
          </span>
        </p>
      )}
    </div>
  );
}

type Recommended = Reply<'recommended:get'>;
type BindOutcome = { kind: 'none' } | { kind: 'working' } | { kind: 'failure'; failure: ServiceFailure };
type FieldProblem = { field: 'bind-site' | 'bind-user-id' | 'bind-passkey'; text: string };

function BindSection({ state, onBound }: { state: ProfileState; onBound: (profile?: ProfileView) => void }) {
  const [bound, setBound] = useState<{ message?: string } | undefined>();
  const activated = state.kind === 'ok' && state.profile.activated;
  // Not while the state is being asked for: an activated token needs no form (nor its site list).
  const needsForm = ((state.kind === 'ok' && !activated) || state.kind === 'failure') && !bound;
  return (
    <section class="card" id="bind-section" aria-labelledby="bind-heading">
      <h2 id="bind-heading">{t('bindHeading')}</h2>
      {state.kind === 'no-token' && <p class="muted">{t('bindNeedsToken')}</p>}
      {bound && (
        <div class="notice ok" role="status" id="bind-result">
          <strong class="notice-title">{t('bindOk')}</strong>
          {bound.message && (
            <p class="service-message">
              <span class="raw">
                {t('serviceSaid')} “{bound.message}”
              </span>
            </p>
          )}
        </div>
      )}
      {activated && !bound && (
        <p class="muted" id="bind-done">
          {t('bindDone')}
        </p>
      )}
      {needsForm && (
        <BindForm
          onBound={(message, profile) => {
            setBound({ message });
            onBound(profile);
          }}
        />
      )}
    </section>
  );
}

function BindForm({ onBound }: { onBound: (message?: string, profile?: ProfileView) => void }) {
  const [recommended, setRecommended] = useState<Recommended | undefined>();
  const [sid, setSid] = useState('');
  const [userId, setUserId] = useState('');
  const [passkey, setPasskey] = useState('');
  const [problem, setProblem] = useState<FieldProblem | undefined>();
  const [outcome, setOutcome] = useState<BindOutcome>({ kind: 'none' });
  const form = useRef<HTMLFormElement>(null);

  const loadSites = async (refresh: boolean) => {
    setRecommended(undefined);
    const answer = await sendToBackground('recommended:get', { refresh });
    setRecommended(answer ?? { sites: [], count: 0, error: REFUSED });
  };
  useEffect(() => {
    void loadSites(false);
  }, []);

  const chosen: RecommendedSiteView | undefined = recommended?.sites.find((site) => String(site.sid) === sid);

  const refuse = (found: FieldProblem) => {
    setProblem(found);
    form.current?.querySelector<HTMLElement>(`#${found.field}`)?.focus();
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const id = userId.trim();
    const key = passkey.trim();
    if (!chosen) return refuse({ field: 'bind-site', text: t('bindErrSite') });
    if (!/^\d{1,12}$/.test(id)) return refuse({ field: 'bind-user-id', text: t('bindErrUserId') });
    if (!key || /\s/.test(key)) return refuse({ field: 'bind-passkey', text: t('bindErrPasskey') });
    setProblem(undefined);
    // Binding sends a user id and a passkey SHA-1: where the browser asks (Firefox), within this click.
    const consent = askForBinding();
    setOutcome({ kind: 'working' });
    // The raw passkey goes no further than our background, which sends only its SHA-1; the field
    // is emptied at once so it does not linger in the page either.
    setPasskey('');
    if (!(await consent)) {
      setOutcome({ kind: 'failure', failure: { kind: 'no-consent', detail: 'the user did not allow binding to send its data' } });
      return;
    }
    const answer = await sendToBackground('account:bind', { sid: chosen.sid, site: chosen.site, userId: id, passkey: key });
    if (answer?.ok) {
      setOutcome({ kind: 'none' });
      onBound(answer.message, answer.profile);
    } else {
      setOutcome({ kind: 'failure', failure: answer?.error ?? REFUSED });
    }
  };

  const invalid = (field: FieldProblem['field']) => problem?.field === field;
  const described = (field: FieldProblem['field'], hint?: string) =>
    [hint, invalid(field) ? 'bind-problem' : undefined].filter(Boolean).join(' ') || undefined;

  return (
    <>
      <p class="hint">{t('bindIntro')}</p>
      {recommended?.error && !recommended.sites.length && (
        <FailureNotice failure={recommended.error}>
          <button type="button" onClick={() => void loadSites(true)}>
            {t('refreshList')}
          </button>
        </FailureNotice>
      )}
      {recommended && !recommended.error && !recommended.sites.length && <p class="muted">{t('bindNoSites')}</p>}
      <form ref={form} class="fields" id="bind-form" onSubmit={(event) => void submit(event)} noValidate>
        <label for="bind-site">{t('bindSite')}</label>
        <div class="inline">
          <select
            id="bind-site"
            value={sid}
            onChange={(event) => setSid((event.currentTarget as HTMLSelectElement).value)}
            aria-invalid={invalid('bind-site')}
            aria-describedby={described('bind-site')}
            aria-busy={!recommended}
          >
            <option value="">{recommended ? t('bindChooseSite') : t('sitesLoading')}</option>
            {recommended?.sites.map((site) => (
              <option key={site.sid} value={String(site.sid)}>
                {site.nickname === site.site ? site.nickname : `${site.nickname} (${site.site})`}
              </option>
            ))}
          </select>
          <button type="button" id="bind-sites-refresh" onClick={() => void loadSites(true)} disabled={!recommended}>
            {t('refreshList')}
          </button>
        </div>
        {chosen?.homeUrl && (
          <p class="hint">
            <a href={chosen.homeUrl} target="_blank" rel="noopener noreferrer" id="bind-site-link">
              {t('bindOpenSite', chosen.nickname)}
            </a>
          </p>
        )}

        <label for="bind-user-id">{t('bindUserId')}</label>
        <input
          id="bind-user-id"
          type="text"
          inputMode="numeric"
          autocomplete="off"
          spellcheck={false}
          value={userId}
          onInput={(event) => setUserId((event.currentTarget as HTMLInputElement).value)}
          aria-invalid={invalid('bind-user-id')}
          aria-describedby={described('bind-user-id', 'bind-user-id-hint')}
        />
        <p class="hint" id="bind-user-id-hint">
          {t('bindUserIdHint')}
        </p>

        <label for="bind-passkey">{t('bindPasskey')}</label>
        <input
          id="bind-passkey"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={passkey}
          onInput={(event) => setPasskey((event.currentTarget as HTMLInputElement).value)}
          aria-invalid={invalid('bind-passkey')}
          aria-describedby={described('bind-passkey', 'bind-passkey-hint')}
        />
        <p class="hint" id="bind-passkey-hint">
          {t('bindPasskeyPrivacy')}
        </p>

        {problem && (
          <p class="status problem field-problem" id="bind-problem" role="alert">
            {problem.text}
          </p>
        )}
        <div class="buttons">
          <button type="submit" class="primary" id="bind" disabled={outcome.kind === 'working'}>
            {outcome.kind === 'working' ? t('binding') : t('bind')}
          </button>
        </div>
      </form>
      {outcome.kind === 'failure' && <BindFailure failure={outcome.failure} />}
    </>
  );
}
