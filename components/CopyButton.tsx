import { Component } from 'preact';
import { t } from '../utils/i18n';
import { copyText } from './clipboard';
import { CheckIcon, CopyIcon } from './icons';

interface Props {
  text: string;
  /** What is copied, in words, for the accessible name of the icon-only button ("Copy PTer #12"). */
  describedAs?: string;
  /** Visible words instead of the icon (e.g. "Copy all links"). */
  label?: string;
  /** -1 inside the in-page list, which is one Tab stop as a whole. */
  tabIndex?: number;
}

/**
 * Copies `text` and says so for a moment, to screen readers too. A class component: the panel
 * ships no hooks module, and the content script's size is budgeted.
 */
export class CopyButton extends Component<Props, { state?: 'copied' | 'failed' }> {
  private timer?: ReturnType<typeof setTimeout>;

  override componentWillUnmount() {
    clearTimeout(this.timer);
  }

  private copy = async (event: Event) => {
    const copied = await copyText(this.props.text, (event.currentTarget as HTMLElement).getRootNode() as Node);
    this.setState({ state: copied ? 'copied' : 'failed' });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.setState({ state: undefined }), 1500);
  };

  render({ label, describedAs, tabIndex }: Props, { state }: { state?: 'copied' | 'failed' }) {
    const said = state === 'copied' ? t('copied') : state === 'failed' ? t('copyFailed') : '';
    const name = label ?? t('copyWhat', describedAs ?? '');
    return (
      // The name stays put while the face changes; the live region announces the outcome.
      <button type="button" class={`copy${label ? '' : ' icon-button'}${state ? ` ${state}` : ''}`} onClick={this.copy} aria-label={name} title={name} tabIndex={tabIndex}>
        {label ? said || label : state === 'copied' ? <CheckIcon /> : <CopyIcon />}
        <span class="sr-only" aria-live="polite">
          {said}
        </span>
      </button>
    );
  }
}
