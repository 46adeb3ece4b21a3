import type { Reply } from '../../protocol';
import { useEffect, useState } from 'preact/hooks';

import { describeFailure, formatNumber, t } from '../../../utils/i18n';
import { sendToBackground } from '../../send-to-background';

type Answer = Reply<'recommended:get'>;

/** The service's recommended sites (where a token can be bound), with links to their home pages. */
export function RecommendedSites() {
  const [answer, setAnswer] = useState<Answer | undefined>();
  useEffect(() => {
    let alive = true;
    void sendToBackground('recommended:get', {}).then((value) => alive && setAnswer(value));
    return () => {
      alive = false;
    };
  }, []);
  if (!answer || answer.error?.kind === 'no-credentials') return null;
  return (
    <section class="recommended" aria-labelledby="recommended-heading">
      <details open={answer.sites.length <= 8}>
        <summary>
          <h2 id="recommended-heading">{t('recommendedHeading', formatNumber(answer.count || answer.sites.length))}</h2>
        </summary>
        {answer.error && !answer.sites.length && <p class="muted small">{describeFailure(answer.error).title}</p>}
        <ul class="recommended-list">
          {answer.sites.map((site) => (
            <li key={site.sid}>
              {site.homeUrl ? (
                <a href={site.homeUrl} target="_blank" rel="noopener noreferrer">
                  {site.nickname}
                </a>
              ) : (
                <span>{site.nickname}</span>
              )}
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
