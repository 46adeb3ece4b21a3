import { render } from 'preact';
import { browser } from 'wxt/browser';
import { t } from '../../utils/i18n';
import { Popup } from './PopupApp';
import '../../components/base.css';
import './style.css';

/** The tab to show: `?tabId=N` (pop out), else the active tab of the current window. */
async function targetTab(): Promise<{ tabId: number; poppedOut: boolean } | undefined> {
  const fromQuery = new URLSearchParams(location.search).get('tabId');
  if (fromQuery && /^\d+$/.test(fromQuery)) return { tabId: Number(fromQuery), poppedOut: true };
  const [active] = await browser.tabs.query({ active: true, currentWindow: true });
  return active?.id === undefined ? undefined : { tabId: active.id, poppedOut: false };
}

document.documentElement.lang = browser.i18n.getUILanguage();
document.title = t('extName');
const root = document.getElementById('app')!;
void targetTab().then((target) => {
  if (target) render(<Popup tabId={target.tabId} poppedOut={target.poppedOut} />, root);
  else root.textContent = t('statusNotTracker');
});
