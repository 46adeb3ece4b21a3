import { FailureNotice } from './FailureNotice';
import type { ServiceFailure } from '../utils/iyuu/service-errors';

/** What a section's last action came to: nothing yet, under way, done, a local problem, or a service failure. */
export type Status =
  | { kind: 'idle' }
  | { kind: 'working'; text: string }
  | { kind: 'ok'; text: string }
  | { kind: 'problem'; text: string }
  | { kind: 'failure'; failure: ServiceFailure };

export const IDLE: Status = { kind: 'idle' };

export function StatusLine({ status, id }: { status: Status; id?: string }) {
  // The live region is always in the document, so screen readers announce what appears in it.
  if (status.kind === 'idle') return <p class="status" id={id} role="status" aria-live="polite" />;
  if (status.kind === 'failure') return <FailureNotice failure={status.failure} />;
  return (
    <p class={`status ${status.kind}`} id={id} role="status" aria-live="polite">
      {status.text}
    </p>
  );
}
