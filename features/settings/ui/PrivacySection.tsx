/** What leaves the browser, and where: said plainly on the first run and kept as a section. */
import { t } from '../../../utils/i18n';

export function PrivacyFacts({ serviceHost }: { serviceHost: string }) {
  return (
    <ul class="privacy-facts">
      <li>{t('privacyLookups', serviceHost)}</li>
      <li>{t('privacyBinding')}</li>
      <li>{t('privacyClients')}</li>
      <li>{t('privacyIndex')}</li>
      <li>{t('privacyNothingElse')}</li>
    </ul>
  );
}

/** Shown at the top of the options page until the user says they have read it. */
export function FirstRunNotice({ serviceHost, onSeen }: { serviceHost: string; onSeen: () => void }) {
  return (
    <div class="notice info first-run" id="first-run" role="region" aria-labelledby="first-run-title">
      <strong class="notice-title" id="first-run-title">
        {t('privacyFirstRunTitle')}
      </strong>
      <PrivacyFacts serviceHost={serviceHost} />
      <div class="buttons">
        <button type="button" class="primary" id="first-run-ok" onClick={onSeen}>
          {t('privacyGotIt')}
        </button>
      </div>
    </div>
  );
}

export function PrivacySection({ serviceHost }: { serviceHost: string }) {
  return (
    <section class="card" id="privacy-section" aria-labelledby="privacy-heading">
      <h2 id="privacy-heading">{t('privacyHeading')}</h2>
      <PrivacyFacts serviceHost={serviceHost} />
    </section>
  );
}
