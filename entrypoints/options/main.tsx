import { render } from 'preact';
import { browser } from 'wxt/browser';
import { t } from '../../utils/i18n';
import { Options } from './OptionsApp';
import '../../components/base.css';
import './style.css';

document.documentElement.lang = browser.i18n.getUILanguage();
document.title = t('optionsTitle');
render(<Options />, document.getElementById('app')!);
