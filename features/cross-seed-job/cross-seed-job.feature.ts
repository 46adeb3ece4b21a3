/**
 * "Cross-seed your client": the preview from the index and the background job (issue 17).
 * SKELETON for the helpers' branches: the job's helper replaces every handler below.
 */
import type { Handlers } from '../../utils/messaging/protocol';
import type { Shared } from '../../entrypoints/background/context';
import type { crossSeedJobMessages } from './cross-seed-job.messages';

const notYet = async (): Promise<never> => {
  throw new Error('not built yet');
};

export class CrossSeedJob {
  constructor(readonly shared: Shared) {}

  readonly handlers: Handlers<typeof crossSeedJobMessages> = {
    'job:preview': notYet,
    'job:site-torrents': notYet,
    'job:site-pace': notYet,
    'job:start': notYet,
    'job:pause': notYet,
    'job:resume': notYet,
    'job:cancel': notYet,
    'job:status': notYet,
    'job:try-again': notYet,
    'job:switches': notYet,
  };
}
