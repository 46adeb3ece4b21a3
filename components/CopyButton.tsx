import { useState } from 'preact/hooks';
import { t } from '../utils/i18n';
import { copyText } from './clipboard';

/** A small button that copies `text` and says so for a moment (also to screen readers). */
export function CopyButton({ text, label, describedAs }: { text: string; label?: string; describedAs: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const onClick = async (event: Event) => {
    const copied = await copyText(text, (event.currentTarget as HTMLElement).getRootNode() as Node);
    setState(copied ? 'copied' : 'failed');
    setTimeout(() => setState('idle'), 1500);
  };
  const shown = state === 'copied' ? t('copied') : state === 'failed' ? t('copyFailed') : (label ?? t('copy'));
  return (
    <button type="button" class="copy" onClick={onClick} aria-label={`${label ?? t('copy')}: ${describedAs}`} aria-live="polite">
      {shown}
    </button>
  );
}
