// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/**
 * Token state and binding, against the real background and the reference service: what the
 * service says about the token, and a bind that sends only the passkey's SHA-1.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { AccountSections, describeBindFailure } from '../../../../features/account/ui/AccountSections';
import { formatDateTime } from '../../../../utils/i18n';
import { DEMO_EXPIRED_TOKEN, DEMO_UNBOUND_TOKEN } from '../../../service/server';
import { installI18n, loadMessages } from '../../support/i18n';
import { $, afterPageMessages, choose, click, mount, startOptionsWorld, text, type, waitFor, type OptionsWorld } from '../../options/support';

const en = loadMessages('en');
const zh = loadMessages('zh_CN');
const sha1 = (value: string) => createHash('sha1').update(value).digest('hex');

let world: OptionsWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** An account of the reference data that no token is bound to yet. */
function freeAccount(world: OptionsWorld) {
  const account = world.service.data.accounts.find((entry) => entry.site === 'hdhome' && entry.user_id === '120087')!;
  const sid = world.service.data.recommend.find((entry) => entry.site === account.site)!.id;
  return { ...account, sid };
}

async function bindForm(page: HTMLElement) {
  return waitFor(() => page.querySelector<HTMLSelectElement>('#bind-site option[value="7"]') && page, 'the recommended sites');
}

describe('token state', () => {
  it('says to save a token first, and asks the service nothing', async () => {
    world = await startOptionsWorld({ settings: { token: '' } });
    const page = mount(<AccountSections hasToken={false} />);
    await afterPageMessages();
    expect(text(page, '#token-state')).toBe(en.tokenStateNoToken!.message);
    expect(text(page, '#bind-section p')).toBe(en.bindNeedsToken!.message);
    expect(page.querySelector('#token-refresh')).toBeNull();
    expect(world.service.requests).toHaveLength(0);
  });

  it('shows an activated token with its expiry date in the locale, and nothing to bind', async () => {
    world = await startOptionsWorld();
    const page = mount(<AccountSections hasToken />);
    await waitFor(() => page.querySelector('.token-activated'), 'the profile');
    expect(text(page, '.token-activated')).toContain(en.tokenActivated!.message);
    const expiry = world.service.data.tokens.find((token) => token.token === 'demo-token')!.overdue_time * 1000;
    expect(text(page, '.token-expiry')).toBe(formatDateTime(expiry));
    expect(page.querySelector('#bind-form')).toBeNull();
    expect(text(page, '#bind-done')).toBe(en.bindDone!.message);
    expect(world.service.requests.map((request) => request.path)).toEqual(['/reseed/users/profile']);
  });

  it('says when the token expired, with the date, and what to do', async () => {
    world = await startOptionsWorld({ settings: { token: DEMO_EXPIRED_TOKEN } });
    const page = mount(<AccountSections hasToken />);
    await waitFor(() => page.querySelector('.token-expiry'), 'the profile');
    expect(page.querySelector('.token-expiry.expired')).not.toBeNull();
    const expiry = formatDateTime(Date.UTC(2020, 0, 1));
    expect(text(page, '.token-expiry')).toBe(`${expiry} (${en.tokenExpiredShort!.message})`);
    expect(text(page, '.notice.warn')).toBe(en.tokenExpired!.message.replace('$1', expiry));
  });

  it('shows a lifetime membership instead of a date', async () => {
    world = await startOptionsWorld({ settings: { token: 'demo-forever-token' } });
    const page = mount(<AccountSections hasToken />);
    await waitFor(() => page.querySelector('.token-expiry'), 'the profile');
    expect(text(page, '.token-expiry')).toBe(en.tokenLifetime!.message);
  });

  it('shows an unknown token as a failure with what to do, and asks again on Refresh', async () => {
    world = await startOptionsWorld({ settings: { token: 'not-a-registered-token' } });
    const page = mount(<AccountSections hasToken />);
    const notice = await waitFor(() => page.querySelector('#token-state .notice.error'), 'the failure');
    expect(notice.getAttribute('data-kind')).toBe('auth');
    expect(notice.textContent).toContain(en.errAuth!.message);
    expect(notice.textContent).toContain(en.actAuth!.message);
    // The service's own words are shown as well, as text.
    expect(notice.textContent).toContain('token未注册');
    const before = world.service.requests.filter((request) => request.path === '/reseed/users/profile').length;
    await click($<HTMLButtonElement>(page, '#token-refresh'));
    await waitFor(() => world!.service.requests.filter((request) => request.path === '/reseed/users/profile').length > before, 'a second profile request');
    await waitFor(() => page.querySelector('#token-state .notice.error'), 'the failure again');
    // The bind form shows (the state is unknown) and has its site list before the service closes.
    await waitFor(() => page.querySelector('#bind-site[aria-busy="false"]'), 'the recommended sites');
  });

  it('shows a server failure as one, not as "not bound"', async () => {
    world = await startOptionsWorld();
    world.service.control.forceStatus(503, 1, { path: '/reseed/users/profile' });
    const page = mount(<AccountSections hasToken />);
    const notice = await waitFor(() => page.querySelector('#token-state .notice.error'), 'the failure');
    expect(notice.getAttribute('data-kind')).toBe('server');
    expect(page.querySelector('.token-unbound')).toBeNull();
    await waitFor(() => page.querySelector('#bind-site[aria-busy="false"]'), 'the recommended sites');
  });

  it('reads in Chinese, with the date in Chinese form', async () => {
    world = await startOptionsWorld({ locale: 'zh_CN', settings: { token: DEMO_UNBOUND_TOKEN } });
    const page = mount(<AccountSections hasToken />);
    await waitFor(() => page.querySelector('.token-unbound'), 'the profile');
    expect(text(page, '#token-state-heading')).toBe(zh.tokenStateHeading!.message);
    expect(text(page, '.token-unbound')).toContain(zh.tokenNotBound!.message);
    expect(text(page, '.token-expiry')).toMatch(/^2100年1月1日/);
    expect(text(page, '#bind-passkey-hint')).toBe(zh.bindPasskeyPrivacy!.message);
  });
});

describe('binding', () => {
  it('binds with the SHA-1 of the passkey only, clears the field, and shows the token activated', async () => {
    world = await startOptionsWorld({ settings: { token: DEMO_UNBOUND_TOKEN } });
    const account = freeAccount(world);
    const page = mount(<AccountSections hasToken />);
    await waitFor(() => page.querySelector('.token-unbound'), 'the profile');
    await bindForm(page);
    // The privacy promise is on the page, next to the field.
    expect($(page, '#bind-passkey').getAttribute('aria-describedby')).toContain('bind-passkey-hint');
    expect($(page, '#bind-passkey').getAttribute('type')).toBe('password');

    await choose($(page, '#bind-site'), String(account.sid));
    expect($<HTMLAnchorElement>(page, '#bind-site-link').href).toBe('https://hdhome.org/');
    await type($(page, '#bind-user-id'), account.user_id);
    await type($(page, '#bind-passkey'), account.passkey);
    await click($<HTMLButtonElement>(page, '#bind'));
    // The field is emptied as soon as the passkey is handed to the background.
    await waitFor(() => $<HTMLInputElement>(page, '#bind-passkey').value === '' || !page.querySelector('#bind-passkey'), 'the passkey cleared');

    await waitFor(() => page.querySelector('#bind-result.ok'), 'the bind answer');
    expect(text(page, '#bind-result .notice-title')).toBe(en.bindOk!.message);
    expect(text(page, '#bind-result')).toContain('绑定成功');
    expect(text(page, '.token-activated')).toContain(en.tokenActivated!.message);
    expect(page.querySelector('#bind-form')).toBeNull();

    const bind = world.service.requests.find((request) => request.path === '/reseed/users/bind')!;
    const form = new URLSearchParams(bind.body);
    expect(form.get('passkey')).toBe(sha1(account.passkey));
    expect(form.get('id')).toBe(account.user_id);
    expect(form.get('sid')).toBe(String(account.sid));
    expect(form.get('site')).toBe('hdhome');
    for (const request of world.service.requests) {
      expect(`${request.path} ${request.body} ${JSON.stringify(request.headers)}`).not.toContain(account.passkey);
    }
    expect(world.service.control.binding(DEMO_UNBOUND_TOKEN)).toEqual({ site: 'hdhome', user_id: account.user_id });
    // Nothing of the passkey was stored either.
    expect(JSON.stringify(await (await import('wxt/testing/fake-browser')).fakeBrowser.storage.local.get(null))).not.toContain(account.passkey);
  });

  it('checks the fields before sending anything, and points to the first wrong one', async () => {
    world = await startOptionsWorld({ settings: { token: DEMO_UNBOUND_TOKEN } });
    const page = mount(<AccountSections hasToken />);
    await bindForm(page);
    await click($<HTMLButtonElement>(page, '#bind'));
    await waitFor(() => page.querySelector('#bind-problem'), 'the problem');
    expect(text(page, '#bind-problem')).toBe(en.bindErrSite!.message);
    expect($(page, '#bind-site').getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement?.id).toBe('bind-site');

    await choose($(page, '#bind-site'), '7');
    await type($(page, '#bind-user-id'), 'alice');
    await type($(page, '#bind-passkey'), 'abc');
    await click($<HTMLButtonElement>(page, '#bind'));
    await waitFor(() => text(page, '#bind-problem') === en.bindErrUserId!.message, 'the user id problem');
    expect(document.activeElement?.id).toBe('bind-user-id');
    expect($(page, '#bind-user-id').getAttribute('aria-describedby')).toContain('bind-problem');

    await type($(page, '#bind-user-id'), '120087');
    await type($(page, '#bind-passkey'), '   ');
    await click($<HTMLButtonElement>(page, '#bind'));
    await waitFor(() => text(page, '#bind-problem') === en.bindErrPasskey!.message, 'the passkey problem');
    await afterPageMessages();
    expect(world.service.requests.some((request) => request.path === '/reseed/users/bind')).toBe(false);
  });

  it('says in our words when the site does not confirm the account, and empties the passkey', async () => {
    world = await startOptionsWorld({ settings: { token: DEMO_UNBOUND_TOKEN } });
    const page = mount(<AccountSections hasToken />);
    await bindForm(page);
    await choose($(page, '#bind-site'), '7');
    await type($(page, '#bind-user-id'), '120087');
    await type($(page, '#bind-passkey'), '00000000000000000000000000000000');
    await click($<HTMLButtonElement>(page, '#bind'));
    const notice = await waitFor(() => page.querySelector('#bind-result.error'), 'the refusal');
    expect(text(notice, '.notice-title')).toBe(en.bindRejectedTitle!.message);
    expect(text(notice, '.notice-action')).toBe(en.bindRejectedAct!.message);
    expect(text(notice, '.service-message')).toContain('绑定失败');
    expect($<HTMLInputElement>(page, '#bind-passkey').value).toBe('');
    // The user id stays, so only the passkey needs typing again.
    expect($<HTMLInputElement>(page, '#bind-user-id').value).toBe('120087');
    expect(page.querySelector('.token-unbound')).not.toBeNull();
  });

  it('says so when the account already activated another token', async () => {
    world = await startOptionsWorld({ settings: { token: DEMO_UNBOUND_TOKEN } });
    // ourbits 38211 activated demo-token in the reference data.
    const taken = world.service.data.accounts.find((entry) => entry.site === 'ourbits')!;
    const page = mount(<AccountSections hasToken />);
    await bindForm(page);
    await choose($(page, '#bind-site'), '9');
    await type($(page, '#bind-user-id'), taken.user_id);
    await type($(page, '#bind-passkey'), taken.passkey);
    await click($<HTMLButtonElement>(page, '#bind'));
    const notice = await waitFor(() => page.querySelector('#bind-result.error'), 'the refusal');
    expect(text(notice, '.notice-title')).toBe(en.bindTakenTitle!.message);
    expect(text(notice, '.notice-action')).toBe(en.bindTakenAct!.message);
  });

  it('shows why the recommended sites could not be had, and gets them on "Refresh the list"', async () => {
    world = await startOptionsWorld({ settings: { token: DEMO_UNBOUND_TOKEN } });
    world.service.control.forceStatus(503, 1, { path: '/reseed/sites/recommend' });
    const page = mount(<AccountSections hasToken />);
    const notice = await waitFor(() => page.querySelector('#bind-section .notice.error'), 'the failure');
    expect(notice.getAttribute('data-kind')).toBe('server');
    await click($<HTMLButtonElement>(notice, 'button'));
    await bindForm(page);
    expect(page.querySelector('#bind-section .notice.error')).toBeNull();
    expect(page.querySelectorAll('#bind-site option').length).toBe(world.service.data.recommend.length + 1);
  });
});

describe('describeBindFailure', () => {
  it("maps the service's bind refusals to what happened and what to do", () => {
    installI18n('en');
    const refusal = (serviceMessage: string) => describeBindFailure({ kind: 'bad-request', detail: 'bind', serviceMessage, code: 400 });
    expect(refusal('用户已绑定，请勿重复操作')).toEqual({ title: en.bindAlreadyBoundTitle!.message, action: en.bindAlreadyBoundAct!.message });
    expect(refusal('该站点账号已被其他token绑定')).toEqual({ title: en.bindTakenTitle!.message, action: en.bindTakenAct!.message });
    expect(refusal('该站点不在推荐站点列表')).toEqual({ title: en.bindNotRecommendedTitle!.message, action: en.bindNotRecommendedAct!.message });
    expect(refusal('绑定失败：站点用户校验未通过')).toEqual({ title: en.bindRejectedTitle!.message, action: en.bindRejectedAct!.message });
  });

  it('leaves other failures to their general meaning, with the known service words in ours', () => {
    installI18n('en');
    const unknown = describeBindFailure({ kind: 'bad-request', detail: 'bind', serviceMessage: '系统维护中' });
    expect(unknown).toMatchObject({ title: en.errBadRequest!.message, action: en.actBadRequest!.message });
    const limited = describeBindFailure({ kind: 'rate-limited', detail: 'bind', serviceMessage: '访问频率过快' });
    expect(limited).toMatchObject({ title: en.errRateLimited!.message, friendly: en.serviceMsgTooFast!.message });
    expect(describeBindFailure({ kind: 'network', detail: 'offline' }).title).toBe(en.errNetwork!.message);
  });
});

describe('binding where the browser asks for data consent (Firefox)', () => {
  /** The Firefox build's manifest, and its data-collection permissions held in memory. */
  function firefoxConsent(answer: boolean): { asked: string[][] } {
    const asked: string[][] = [];
    const granted = new Set<string>();
    const runtime = fakeBrowser.runtime as unknown as { getManifest: () => unknown };
    runtime.getManifest = () => ({ browser_specific_settings: { gecko: { data_collection_permissions: { required: ['browsingActivity'] } } } });
    const permissions = fakeBrowser.permissions as unknown as Record<string, (request: { data_collection?: string[]; origins?: string[] }) => Promise<boolean>>;
    const contains = permissions.contains!.bind(permissions);
    const request = permissions.request!.bind(permissions);
    permissions.contains = async (query) =>
      query.data_collection ? query.data_collection.every((type) => granted.has(type)) : contains(query);
    permissions.request = async (query) => {
      if (!query.data_collection) return request(query);
      asked.push(query.data_collection);
      if (answer) for (const type of query.data_collection) granted.add(type);
      return answer;
    };
    return { asked };
  }

  it('asks on Bind, and sends nothing when the user declines', async () => {
    world = await startOptionsWorld({ settings: { token: DEMO_UNBOUND_TOKEN } });
    const consent = firefoxConsent(false);
    const account = freeAccount(world);
    const page = mount(<AccountSections hasToken />);
    await waitFor(() => page.querySelector('.token-unbound'), 'the profile');
    await bindForm(page);
    await choose($(page, '#bind-site'), String(account.sid));
    await type($(page, '#bind-user-id'), account.user_id);
    await type($(page, '#bind-passkey'), account.passkey);
    await click($<HTMLButtonElement>(page, '#bind'));
    await waitFor(() => page.querySelector('#bind-result[data-kind="no-consent"]'), 'the refusal');
    expect(consent.asked).toEqual([['authenticationInfo', 'personallyIdentifyingInfo']]);
    expect(world.service.requests.filter((request) => request.path === '/reseed/users/bind')).toHaveLength(0);
    // The background refuses too, whoever asks it.
    expect((await world.app.account.bind({ sid: account.sid, site: account.site, userId: account.user_id, passkey: account.passkey })).error?.kind).toBe('no-consent');
    expect(world.service.requests.filter((request) => request.path === '/reseed/users/bind')).toHaveLength(0);
  });

  it('binds once the user allows it', async () => {
    world = await startOptionsWorld({ settings: { token: DEMO_UNBOUND_TOKEN } });
    firefoxConsent(true);
    const account = freeAccount(world);
    const page = mount(<AccountSections hasToken />);
    await waitFor(() => page.querySelector('.token-unbound'), 'the profile');
    await bindForm(page);
    await choose($(page, '#bind-site'), String(account.sid));
    await type($(page, '#bind-user-id'), account.user_id);
    await type($(page, '#bind-passkey'), account.passkey);
    await click($<HTMLButtonElement>(page, '#bind'));
    await waitFor(() => page.querySelector('#bind-result.ok'), 'the bind answer');
  });
});

