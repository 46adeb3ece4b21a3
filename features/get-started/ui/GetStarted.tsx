/**
 * "Get started" at the top of the options page: three steps, each saying whether it is done and
 * linking to its section. Folded away once all three are done; the header's "Get started" link
 * (and #get-started) unfolds it again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { t, type MessageKey } from '../../../utils/i18n';
import { sendToBackground } from '../../send-to-background';
import { settingsItem } from '../../settings/settings.storage';
import { clientsItem } from '../../clients/clients.storage';
import type { GetStartedSteps, GetStartedView } from '../get-started.messages';

export const GET_STARTED_ID = 'get-started';
/** The bundled changelog (copied into the build from CHANGELOG.md): it opens offline too. */
const CHANGES_PATH = '/changelog.txt';

/** Each step: what it asks, and the options section where it is done. */
const STEPS: { step: keyof GetStartedSteps; text: MessageKey; section: string }[] = [
  { step: 'service', text: 'getStartedService', section: '#connection-section' },
  { step: 'sites', text: 'getStartedSites', section: '#sites-section' },
  { step: 'client', text: 'getStartedClient', section: '#clients-section' },
];

/** The page's address leads to the guide (its own anchor, or its heading's from the table of contents). */
const atGuide = () => [`#${GET_STARTED_ID}`, '#get-started-heading'].includes(location.hash);

/** "Updated to <version>" with a link to what changed: shown on the first visit after an update. */
function UpdatedNote({ version }: { version: string }) {
  return (
    <div class="notice ok" role="status" id="updated-note">
      <strong class="notice-title">{t('updatedTo', version)}</strong>
      <a href={(browser.runtime.getURL as (path: string) => string)(CHANGES_PATH)} target="_blank" rel="noopener" id="updated-changes">
        {t('updatedWhatChanged')}
      </a>
    </div>
  );
}

/** Unfolds "Get started" and brings it into view (the header link; a later #get-started). */
export function showGetStarted() {
  const guide = document.getElementById(GET_STARTED_ID) as HTMLDetailsElement | null;
  if (!guide) return;
  guide.open = true;
  guide.scrollIntoView({ block: 'start' });
}

/** In the page's header: "Get started" stays reachable once it has folded away. */
export function GetStartedLink() {
  return (
    <a
      href={`#${GET_STARTED_ID}`}
      id="get-started-link"
      class="get-started-link"
      onClick={(event) => {
        event.preventDefault();
        history.replaceState(null, '', `#${GET_STARTED_ID}`);
        showGetStarted();
      }}
    >
      {t('getStartedHeading')}
    </a>
  );
}

export function GetStarted() {
  const [view, setView] = useState<GetStartedView | undefined>();
  const [updatedTo, setUpdatedTo] = useState<string | undefined>();
  // The user's own folding (the summary, the header link); until then, open while a step is left.
  const [unfolded, setUnfolded] = useState<boolean | undefined>();
  const section = useRef<HTMLDetailsElement>(null);

  useEffect(() => {
    const read = () => void sendToBackground('get-started:get', {}).then((next) => next && setView(next));
    void sendToBackground('get-started:get', {}).then((first) => {
      if (!first) return;
      setView(first);
      // Shown on this visit only: the record forgets it at once.
      if (first.updatedTo) {
        setUpdatedTo(first.updatedTo);
        void sendToBackground('get-started:update-shown', {});
      }
    });
    // The steps turn done as the user saves in the sections below.
    const stops = [settingsItem.onChanged(read), clientsItem.onChanged(read)];
    const followHash = () => atGuide() && showGetStarted();
    addEventListener('hashchange', followHash);
    return () => {
      stops.forEach((stop) => stop());
      removeEventListener('hashchange', followHash);
    };
  }, []);
  // The page renders after its first answer, too late for the browser's own jump to #get-started.
  const rendered = !!view;
  useEffect(() => {
    if (rendered && atGuide()) section.current?.scrollIntoView({ block: 'start' });
  }, [rendered]);

  if (!view) return null;
  const allDone = STEPS.every(({ step }) => view.steps[step]);
  const open = unfolded ?? !allDone;
  return (
    <>
      {updatedTo && <UpdatedNote version={updatedTo} />}
      <details
        class="card get-started"
        id={GET_STARTED_ID}
        ref={section}
        open={open}
        data-done={String(allDone)}
        onToggle={(event) => {
          // Only the user's folding counts: the toggle events of this page's own open/close do not.
          const shown = (event.currentTarget as HTMLDetailsElement).open;
          if (shown !== open) setUnfolded(shown);
        }}
      >
        <summary>
          <h2 id="get-started-heading">{t('getStartedHeading')}</h2>
        </summary>
        <p class="hint">{allDone ? t('getStartedAllDone') : t('getStartedIntro')}</p>
        <ol class="get-started-steps">
          {STEPS.map(({ step, text, section: target }) => (
            <li key={step} data-step={step} data-done={String(view.steps[step])}>
              <a href={target}>{t(text)}</a>
              {step === 'service' && (
                <>
                  {' '}
                  <a href="#addresses-section" class="get-started-alternative">
                    {t('getStartedPiecesHash')}
                  </a>
                </>
              )}
              <span class={view.steps[step] ? 'step-state done' : 'step-state'}>{view.steps[step] ? t('getStartedDone') : t('getStartedNotDone')}</span>
            </li>
          ))}
        </ol>
      </details>
    </>
  );
}
