/**
 * Every answer, a control's and a retry's too, may teach its site's limit
 * (src/schedule/site-limit-book.ts), kept per site and identity.
 */
import type { SiteLimitBook } from '../../schedule/site-limit-book.js';
import type { SendWrapper } from './dispatch.js';

export function learnSiteLimits(book: SiteLimitBook): SendWrapper {
  return (send) => async (check) => {
    const sentAt = Date.now();
    const reply = await send(check);
    if (reply.answered && reply.signals)
      book.heard(
        check.site,
        check.egress.name,
        reply.exchange.view.status,
        reply.signals,
        sentAt,
        check.ceiling,
      );
    return reply;
  };
}
