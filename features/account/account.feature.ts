/**
 * Feature: the user's IYUU account, for the options page and the popup: the token's state,
 * binding it to a recommended site, the recommended sites, the connection test, and every site the
 * user may pick as their own.
 */
import type { ProfileView, RecommendedSiteView } from './account.messages';
import { bindAccount, getProfile, getRecommendedSites, type ServiceConfig } from '../../utils/iyuu/operations';
import { toFailure, type ServiceFailure } from '../../utils/iyuu/service-errors';
import type { Profile } from '../../utils/iyuu/answer-schemas';
import { bindingAllowed } from '../../utils/data-collection';
import { normaliseBaseUrl } from '../../utils/settings';
import { recommendedViews } from '../lookup/candidates';
import type { Shared } from '../context';
import type { Handlers } from '../../utils/messaging/protocol';
import type { accountMessages } from './account.messages';

function profileView(profile: Profile): ProfileView {
  const state = profile.state;
  const expiry = typeof profile.overdue_time === 'number' && profile.overdue_time > 0 ? profile.overdue_time * 1000 : undefined;
  const lifetime = profile.is_ever_level;
  return {
    activated: state === true || state === 1 || state === '1',
    expiresAt: expiry,
    lifetime: lifetime === true || lifetime === 1 || lifetime === '1',
  };
}

const NO_TOKEN: ServiceFailure = { kind: 'no-credentials', detail: 'no token configured' };

export class Account {
  constructor(private readonly shared: Shared) {}

  readonly handlers: Handlers<typeof accountMessages> = {
    'recommended:get': (message) => this.recommended(message.refresh ?? false),
    'connection:test': (message) => this.testConnection(message),
    'profile:get': () => this.profile(),
    'account:bind': (message) => this.bind(message),
  };

  async recommended(refresh: boolean): Promise<{ sites: RecommendedSiteView[]; count: number; fetchedAt?: number; error?: ServiceFailure }> {
    const { lookup, directory } = this.shared;
    const settings = await this.shared.settings.get();
    if (!settings.token) return { sites: [], count: 0, error: NO_TOKEN };
    const call = <T>(operation: (config: ServiceConfig) => Promise<T>) => lookup.call(operation, settings);
    const [recommended, sites] = await Promise.all([
      directory.recommended.get(settings.baseUrl, call, { refresh }),
      directory.sites.get(settings.baseUrl, call),
    ]);
    return {
      sites: recommendedViews(recommended.value?.list ?? [], sites.value),
      count: recommended.value?.count ?? 0,
      fetchedAt: recommended.at,
      error: recommended.error,
    };
  }

  /** Calls the recommended-site list with the given values (unsaved form values) or the saved ones. */
  async testConnection(values: { baseUrl?: string; token?: string }): Promise<{ ok: boolean; siteCount?: number; error?: ServiceFailure }> {
    const saved = await this.shared.settings.get();
    const baseUrl = values.baseUrl === undefined ? saved.baseUrl : normaliseBaseUrl(values.baseUrl);
    const token = (values.token ?? saved.token).trim();
    if (!baseUrl) return { ok: false, error: { kind: 'bad-request', detail: 'the API base URL is not an http(s) address' } };
    if (!token) return { ok: false, error: { kind: 'no-credentials', detail: 'no token entered' } };
    try {
      const answer = await this.shared.lookup.call((config) => getRecommendedSites(config), { ...saved, baseUrl, token });
      return { ok: true, siteCount: answer.count };
    } catch (error) {
      return { ok: false, error: toFailure(error) };
    }
  }

  async profile(): Promise<{ profile?: ProfileView; error?: ServiceFailure }> {
    const settings = await this.shared.settings.get();
    if (!settings.token) return { error: NO_TOKEN };
    try {
      return { profile: profileView(await this.shared.lookup.call((config) => getProfile(config), settings)) };
    } catch (error) {
      return { error: toFailure(error) };
    }
  }

  /** Binds the token to an account on a recommended site. The client sends only the passkey's SHA-1. */
  async bind(account: { sid: number; site: string; userId: string; passkey: string }): Promise<{
    ok: boolean;
    message?: string;
    profile?: ProfileView;
    error?: ServiceFailure;
  }> {
    const settings = await this.shared.settings.get();
    if (!settings.token) return { ok: false, error: NO_TOKEN };
    if (!(await bindingAllowed())) return { ok: false, error: { kind: 'no-consent', detail: 'binding sends a user id and a passkey SHA-1: not allowed' } };
    try {
      const message = await this.shared.lookup.call((config) => bindAccount(config, account), settings);
      // A freshly bound token gets a new site report on the next lookup.
      await this.shared.lookup.forgetServiceState();
      const { profile } = await this.profile();
      return { ok: true, message, profile };
    } catch (error) {
      return { ok: false, error: toFailure(error) };
    }
  }
}
