/**
 * The panel's confirmation window (issue 15): `confirm.html?tabId=N&sid=S&torrentId=T`, opened by
 * the background in a popup window of its own (features/cross-seed/confirm-windows.ts).
 */
import { render } from 'preact';
import { browser } from 'wxt/browser';
import { ConfirmCrossSeed } from '../../features/cross-seed/ui/ConfirmCrossSeed';
import { t } from '../../utils/i18n';
import '../../components/base.css';
import './style.css';

const query = new URLSearchParams(location.search);
const number = (name: string) => (/^\d{1,16}$/.test(query.get(name) ?? '') ? Number(query.get(name)) : undefined);
const [tabId, sid, torrentId] = [number('tabId'), number('sid'), number('torrentId')];

document.documentElement.lang = browser.i18n.getUILanguage();
document.title = t('confirmTitle');
const root = document.getElementById('app')!;
if (tabId === undefined || sid === undefined || torrentId === undefined) root.textContent = t('confirmGone');
else render(<ConfirmCrossSeed tabId={tabId} sid={sid} torrentId={torrentId} onClose={() => window.close()} />, root);
