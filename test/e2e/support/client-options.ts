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

// ------------------------------------------------------------------------------------------------
// The form by its words, as a person reads it: every field by its label, every button by its text
// (issue 33's labels are contracts: a field that is not labelled so is not found).

/**
 * A CSS selector for the control labelled exactly `label` inside `within` (the `nth` such label,
 * 0-based: a folder pair's fields repeat): the label's `for`, or the control inside it (a checkbox's label).
 */
export async function labelled(page: HarnessPage, label: string, { nth = 0, within = 'body' } = {}): Promise<string> {
  const id = await page.evaluate(
    ({ label: wanted, nth: at, within: scope }) => {
      const labels = [...document.querySelectorAll<HTMLLabelElement>(`${scope} label`)].filter((element) => element.textContent?.trim() === wanted);
      const element = labels[at];
      const control = element?.htmlFor ? document.getElementById(element.htmlFor) : element?.querySelector('input, select, textarea');
      return control?.id || null;
    },
    { label, nth, within },
  );
  if (!id) throw new Error(`no field labelled ${JSON.stringify(label)}${nth ? ` (#${nth + 1})` : ''} in ${within}`);
  return `#${id}`;
}

/** A CSS selector for the button whose text is exactly `text`, inside `within` (a selector; the document by default). */
export async function buttonCalled(page: HarnessPage, text: string, within = 'body'): Promise<string> {
  const path = await page.evaluate(
    ({ text: wanted, within: scope }) => {
      const button = [...document.querySelectorAll(`${scope} button`)].find((element) => element.textContent?.trim() === wanted);
      if (!button) return null;
      // The nearest ancestor with an id, then each step down by its place among its siblings.
      const steps: string[] = [];
      let node: Element = button;
      while (!node.id && node.parentElement) {
        steps.unshift(`${node.localName}:nth-child(${[...node.parentElement.children].indexOf(node) + 1})`);
        node = node.parentElement;
      }
      return [node.id ? `#${node.id}` : node.localName, ...steps].join(' > ');
    },
    { text, within },
  );
  if (!path) throw new Error(`no button ${JSON.stringify(text)} in ${within}`);
  return path;
}

/** The texts of a select's options, in order. */
export function optionTexts(page: HarnessPage, select: string): Promise<string[]> {
  return page.evaluate((css) => [...document.querySelectorAll(`${css} option`)].map((option) => option.textContent?.trim() ?? ''), select);
}

/** Chooses the option whose text is exactly `text`. */
export async function chooseOption(page: HarnessPage, select: string, text: string): Promise<void> {
  const value = await page.evaluate(({ css, wanted }) => [...document.querySelectorAll<HTMLOptionElement>(`${css} option`)].find((option) => option.textContent?.trim() === wanted)?.value ?? null, { css: select, wanted: text });
  if (value === null) throw new Error(`no option ${JSON.stringify(text)} in ${select}: ${JSON.stringify(await optionTexts(page, select))}`);
  await page.select(select, value);
}

/** Ticks or unticks the checkbox labelled `label`, with a click as a person does (only when it is not so already). */
export async function setTicked(page: HarnessPage, label: string, ticked: boolean, within = 'body'): Promise<void> {
  const box = await labelled(page, label, { within });
  if ((await page.evaluate((css) => (document.querySelector(css) as HTMLInputElement).checked, box)) !== ticked) await page.click(box);
  await until(() => page.evaluate((css) => (document.querySelector(css) as HTMLInputElement).checked, box), (now) => now === ticked, `${label} ${ticked ? 'ticked' : 'unticked'}`);
}

/** "Your clients" as listed: each client's Name and what the row says of it beside the address. */
export function yourClients(options: HarnessPage): Promise<{ name: string; readOnly: boolean; copiesTo: string | null }[]> {
  return options.evaluate(() =>
    [...document.querySelectorAll('#client-list li.client')].map((row) => ({
      name: row.querySelector('.client-title')?.textContent ?? '',
      readOnly: !!row.querySelector('.client-read-only'),
      copiesTo: row.querySelector('.client-copies-to')?.textContent?.replace(/^\s*·\s*/, '') ?? null,
    })),
  );
}

/** The selector of the row of "Your clients" showing the client named `name`. */
export async function clientRow(options: HarnessPage, name: string): Promise<string> {
  const id = await options.evaluate((wanted) => [...document.querySelectorAll('#client-list li.client')].find((row) => row.querySelector('.client-title')?.textContent === wanted)?.getAttribute('data-id') ?? null, name);
  if (!id) throw new Error(`no client named ${JSON.stringify(name)} under "Your clients"`);
  return `#client-list li.client[data-id="${id}"]`;
}
