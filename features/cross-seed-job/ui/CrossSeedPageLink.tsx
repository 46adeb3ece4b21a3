/** "Cross-seed your clients": opens cross-seed.html in a tab of its own (from the options page and the popup). */
import { browser } from 'wxt/browser';
import { t } from '../../../utils/i18n';

export const CROSS_SEED_PAGE = '/cross-seed.html';

export function openCrossSeedPage(): void {
  void browser.tabs.create({ url: browser.runtime.getURL(CROSS_SEED_PAGE) });
}

export function CrossSeedPageLink({ class: className }: { class?: string }) {
  return (
    <a
      class={`cross-seed-page-link${className ? ` ${className}` : ''}`}
      href={browser.runtime.getURL(CROSS_SEED_PAGE)}
      onClick={(event) => {
        event.preventDefault();
        openCrossSeedPage();
      }}
    >
      {t('crossSeedPageTitle')}
    </a>
  );
}
