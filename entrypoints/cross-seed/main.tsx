/**
 * "Cross-seed your clients" (issues 17 and 33): cross-seed.html, opened from the options page and the popup.
 * The static <title> is the English one; the user's language replaces it here.
 */
import { render } from 'preact';
import { browser } from 'wxt/browser';
import { CrossSeedPage } from '../../features/cross-seed-job/ui/CrossSeedPage';
import { t } from '../../utils/i18n';
import '../../components/base.css';
import '../options/style.css';
import './style.css';

document.documentElement.lang = browser.i18n.getUILanguage();
document.title = t('crossSeedPageTitle');
render(<CrossSeedPage />, document.getElementById('app')!);
