import type { ComponentChildren } from 'preact';
import type { ServiceFailure } from '../utils/iyuu/service-errors';
import { describeFailure, friendlyServiceMessage, t } from '../utils/i18n';

/** What went wrong and what to do, with the service's own words (as text) when it gave any. */
export function FailureNotice({ failure, now, children }: { failure: ServiceFailure; now?: number; children?: ComponentChildren }) {
  const { title, action } = describeFailure(failure, now);
  const friendly = friendlyServiceMessage(failure.serviceMessage);
  return (
    <div class="notice error" role="alert" data-kind={failure.kind}>
      <strong class="notice-title">{title}</strong>
      <p class="notice-action">{action}</p>
      {failure.serviceMessage && (
        <p class="service-message">
          {friendly && friendly !== title ? `${friendly} ` : ''}
          <span class="raw">
            {t('serviceSaid')} “{failure.serviceMessage}”
          </span>
        </p>
      )}
      {children}
    </div>
  );
}

export function Notice({ kind, title, children }: { kind: string; title: string; children?: ComponentChildren }) {
  return (
    <div class={`notice ${kind}`} role="status">
      <strong class="notice-title">{title}</strong>
      {children}
    </div>
  );
}
