// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/** "Get started" and "Updated to <version>" on the options page, in both languages. */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { Options } from '../../../entrypoints/options/OptionsApp';
import { loadMessages } from '../support/i18n';
import { $, mount, startOptionsWorld, text, waitFor, type OptionsWorld } from './support';

let world: OptionsWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const stepStates = (page: HTMLElement) => [...page.querySelectorAll<HTMLElement>('#get-started li[data-step]')].map((step) => [step.dataset.step, step.dataset.done]);

describe.each(['en', 'zh_CN'] as const)('the options page (%s)', (locale) => {
  const messages = loadMessages(locale);
  const say = (key: string) => messages[key]!.message;

  it('shows the three steps, open while one is left, each saying whether it is done', async () => {
    world = await startOptionsWorld({ locale });
    const page = mount(<Options />);
    await waitFor(() => page.querySelector('#get-started li[data-step]'), 'Get started');
    expect(text(page, '#get-started-heading')).toBe(say('getStartedHeading'));
    expect($<HTMLDetailsElement>(page, '#get-started').open).toBe(true);
    // The world saves a token: the first step is done, the others not.
    expect(stepStates(page)).toEqual([['service', 'true'], ['sites', 'false'], ['client', 'false']]);
    expect(text(page, '#get-started li[data-step="service"] .step-state')).toBe(say('getStartedDone'));
    expect(text(page, '#get-started li[data-step="client"] .step-state')).toBe(say('getStartedNotDone'));
  });

  it('says "Updated to <version>" once after an update, with a link to what changed', async () => {
    world = await startOptionsWorld({ locale, storage: { getStarted: { opened: true, updatedTo: '0.2.0' } } });
    const page = mount(<Options />);
    await waitFor(() => page.querySelector('#updated-note'), 'the update note');
    expect(text(page, '#updated-note .notice-title')).toBe(say('updatedTo').replace('$1', '0.2.0'));
    expect($<HTMLAnchorElement>(page, '#updated-changes').href).toMatch(/\/changelog\.txt$/);
    await waitFor(async () => !((await fakeBrowser.storage.local.get('getStarted')).getStarted as { updatedTo?: string } | undefined)?.updatedTo, 'the note forgotten');
    const again = mount(<Options />);
    await waitFor(() => again.querySelector('#get-started'), 'Get started');
    expect(again.querySelector('#updated-note')).toBeNull();
  });
});
