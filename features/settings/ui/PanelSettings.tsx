/** The in-page panel, on or off everywhere and per site; and the sites the user enabled from the popup. */
import { useState } from 'preact/hooks';
import { t } from '../../../utils/i18n';
import type { SettingsView } from '../settings.messages';
import { sendToBackground } from '../../send-to-background';
import { fieldLabel } from '../../../components/field-names';
import { refocusAfterRemoval } from '../../../components/focus';
import { IDLE, StatusLine, type Status } from '../../../components/StatusLine';
import { CheckWithHint } from '../../../components/CheckWithHint';

interface SectionProps {
  view: SettingsView;
  onSaved: (view: SettingsView) => void;
}

export function PanelSection({ view, onSaved }: SectionProps) {
  const [status, setStatus] = useState<Status>(IDLE);
  const { panelEnabled, panelDisabledHosts } = view.settings;

  const save = async (update: { panelEnabled?: boolean; panelDisabledHosts?: string[] }): Promise<boolean> => {
    setStatus({ kind: 'working', text: t('saving') });
    const answer = await sendToBackground('settings:save', { update });
    if (!answer || !('settings' in answer)) {
      setStatus({ kind: 'problem', text: t('fieldRefused', fieldLabel((answer && 'refused' in answer && answer.refused) || (Object.keys(update)[0] ?? ''))) });
      return false;
    }
    setStatus({ kind: 'ok', text: t('saved') });
    onSaved(answer);
    return true;
  };
  const showAgain = async (host: string, index: number) => {
    if (await save({ panelDisabledHosts: panelDisabledHosts.filter((other) => other !== host) })) {
      refocusAfterRemoval('panel-hidden-hosts', index, 'panel-hidden-heading');
    }
  };

  return (
    <section class="card" id="panel-section" aria-labelledby="panel-heading">
      <h2 id="panel-heading">{t('panelHeading')}</h2>
      <CheckWithHint id="panel-enabled" checked={panelEnabled} onChange={(checked) => void save({ panelEnabled: checked })} label={t('panelEnabledLabel')} hint={t('panelEnabledHint')} />
      <h3 id="panel-hidden-heading" tabIndex={-1}>
        {t('panelHiddenOnHeading')}
      </h3>
      {panelDisabledHosts.length ? (
        <ul class="host-list" id="panel-hidden-hosts" aria-labelledby="panel-hidden-heading">
          {panelDisabledHosts.map((host, index) => (
            <li key={host}>
              <code>{host}</code>
              <button
                type="button"
                aria-label={t('panelShowAgainOn', host)}
                onClick={() => void showAgain(host, index)}
              >
                {t('panelShowAgain')}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t('panelHiddenNone')}</p>
      )}
      <StatusLine status={status} id="panel-status" />
    </section>
  );
}

export function CustomSitesSection({ view, onSaved }: SectionProps) {
  const [status, setStatus] = useState<Status>(IDLE);
  const hosts = view.settings.customHosts;

  const remove = async (host: string, index: number) => {
    setStatus({ kind: 'working', text: t('saving') });
    // The background also drops the content script registration and the host permission.
    const answer = await sendToBackground('site:disable', { host });
    const customHosts = answer?.customHosts ?? hosts;
    setStatus(customHosts.includes(host) ? { kind: 'problem', text: t('fieldRefused', fieldLabel('customHosts')) } : { kind: 'ok', text: t('customRemoved', host) });
    onSaved({ ...view, settings: { ...view.settings, customHosts } });
    refocusAfterRemoval('custom-hosts', index, 'custom-sites-heading');
  };

  return (
    <section class="card" id="custom-sites-section" aria-labelledby="custom-sites-heading">
      <h2 id="custom-sites-heading" tabIndex={-1}>
        {t('customHeading')}
      </h2>
      <p class="hint">{t('customIntro')}</p>
      {hosts.length ? (
        <ul class="host-list" id="custom-hosts" aria-labelledby="custom-sites-heading">
          {hosts.map((host, index) => (
            <li key={host}>
              <code>{host}</code>
              <button type="button" aria-label={t('customRemoveFrom', host)} onClick={() => void remove(host, index)}>
                {t('customRemove')}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t('customNone')}</p>
      )}
      <StatusLine status={status} id="custom-sites-status" />
    </section>
  );
}
