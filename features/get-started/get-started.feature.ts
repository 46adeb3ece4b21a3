/**
 * Feature: the first run that guides. On install the options page opens at "Get started" (once:
 * the stored record decides, as Chromium started with --load-extension reports "install" at every
 * start); on update nothing opens, and the options page says "Updated to <version>" once.
 * The steps' state is read from the settings and the saved clients, never stored apart.
 */
import type { Shared } from '../context';
import type { Handlers } from '../../utils/messaging/protocol';
import type { Clients } from '../clients/clients.feature';
import type { getStartedMessages, GetStartedSteps, GetStartedView } from './get-started.messages';
import { getStartedItem } from './get-started.storage';

/** Where onInstalled opens the options page (the guide's own anchor). */
export const GET_STARTED_PATH = '/options.html#get-started';

export interface InstallDetails {
  reason: string;
  previousVersion?: string;
}

export class GetStarted {
  constructor(
    private readonly shared: Shared,
    private readonly clients: Clients,
  ) {}

  readonly handlers: Handlers<typeof getStartedMessages> = {
    'get-started:get': () => this.view(),
    'get-started:update-shown': async () => {
      const record = await getStartedItem.get();
      await getStartedItem.set({ opened: record.opened });
      return { ok: true as const };
    },
  };

  async steps(): Promise<GetStartedSteps> {
    const settings = await this.shared.settings.get();
    const clients = await this.clients.store.get();
    return {
      service: settings.token !== '' || Object.values(settings.piecesHashSites).some((site) => site.on),
      sites: !!settings.heldSites?.length,
      client: clients.length > 0,
    };
  }

  async view(): Promise<GetStartedView> {
    const record = await getStartedItem.get();
    return { steps: await this.steps(), ...(record.updatedTo ? { updatedTo: record.updatedTo } : {}) };
  }

  /**
   * runtime.onInstalled. `open` opens an extension page (tabs.create in the browser). The record is
   * written before the page opens, so a worker stopped in between cannot open it twice.
   */
  async installed(details: InstallDetails, version: string, open: (path: string) => Promise<unknown>): Promise<void> {
    const record = await getStartedItem.get();
    if (details.reason === 'install') {
      if (record.opened) return;
      await getStartedItem.set({ ...record, opened: true });
      await open(GET_STARTED_PATH);
    } else if (details.reason === 'update' && details.previousVersion !== version) {
      // Whoever updates has had the extension before: the guide is not opened for them later.
      await getStartedItem.set({ opened: true, updatedTo: version });
    }
  }
}
