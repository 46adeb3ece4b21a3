/**
 * The options page's "Torrent clients" section, used as a person uses it: by its fields (labelled
 * Client type, Client URL, Username, Password) and its buttons (Save client, Test client). Shared
 * by the e2e tests of the clients and of cross-seeding.
 */
import type { HarnessBrowser, HarnessPage } from '../harness/index.ts';
import { until } from './wait';

/** What the form needs of a client: a started daemon (test/clients/daemons.ts) has all of it. */
export interface ClientFormValues {
  kind: string;
  url: string;
  username: string;
  password: string;
}

/** Opens the options page at "Torrent clients", ready to type in. */
export async function openClientsOptions(browser: HarnessBrowser): Promise<HarnessPage> {
  const options = await browser.openExtensionPage('options.html#clients-heading');
  // Firefox gives a tab behind the helper tab no animation frames: bring it forward to type in it.
  await options.bringToFront();
  await options.waitForSelector('#client-url', { state: 'visible' });
  await options.waitForSelector('#client-none, #client-list');
  return options;
}

/** The labels of the form's four fields, in order. */
export function clientFieldLabels(options: HarnessPage): Promise<Array<string | null | undefined>> {
  return options.evaluate(() => ['client-type', 'client-url', 'client-username', 'client-password'].map((id) => document.querySelector(`label[for="${id}"]`)?.textContent));
}

/** Removes every saved client (with each one's Remove button), so that the next one saved is the default. */
export async function removeAllClients(options: HarnessPage): Promise<void> {
  while (await options.evaluate(() => !!document.querySelector('#client-list .remove-client'))) {
    const count = await options.evaluate(() => document.querySelectorAll('#client-list .remove-client').length);
    await options.click('#client-list .remove-client');
    await until(() => options.evaluate(() => document.querySelectorAll('#client-list .remove-client').length), (now) => now < count, 'a client removed');
  }
}

/** Fills the form field by field. */
export async function fillClientForm(options: HarnessPage, values: ClientFormValues, password = values.password): Promise<void> {
  await options.select('#client-type', values.kind);
  await options.fill('#client-url', values.url);
  await options.fill('#client-username', values.username);
  await options.fill('#client-password', password);
}

/** Presses Test client and gives what it then says, and the client's own words when it gave any. */
export async function pressTestClient(options: HarnessPage): Promise<{ text: string; said: string; ok: boolean }> {
  const read = () =>
    options.evaluate(() => ({
      done: !!document.querySelector('#client-status.ok, #client-status.problem'),
      ok: !!document.querySelector('#client-status.ok'),
      text: document.querySelector('#client-status .client-outcome-text')?.textContent ?? '',
      said: document.querySelector('#client-status .client-said')?.textContent ?? '',
    }));
  const before = await read();
  await options.click('#test-client');
  const after = await until(read, (now) => now.done && (now.text !== before.text || now.said !== before.said), 'what Test client says', 30_000);
  return { text: after.text, said: after.said, ok: after.ok };
}

/**
 * Presses Save client and gives what it then says ("Client saved.", or why not). There is no
 * default client any more (issue 33): the outcome line is what tells this save is done. Watched from
 * before the click, so the line a Test client left there is not taken for the save's.
 */
export async function pressSaveClient(options: HarnessPage): Promise<string> {
  await options.evaluate(() => {
    const status = document.querySelector('#client-status')!;
    const page = window as unknown as { reseedLensSaveSaid?: string | null };
    page.reseedLensSaveSaid = null;
    let working = false;
    const watch = new MutationObserver(() => {
      if (status.classList.contains('working')) working = true;
      // A refused permission says so without working first.
      else if (status.classList.contains('problem') || (working && status.classList.contains('ok'))) {
        page.reseedLensSaveSaid = status.querySelector('.client-outcome-text')?.textContent ?? '';
        watch.disconnect();
      }
    });
    watch.observe(status, { attributes: true, childList: true, subtree: true, characterData: true });
  });
  await options.click('#save-client');
  return (await until(
    () => options.evaluate(() => (window as unknown as { reseedLensSaveSaid?: string | null }).reseedLensSaveSaid ?? null),
    (said) => said !== null,
    'what Save client says',
    30_000,
  ))!;
}
