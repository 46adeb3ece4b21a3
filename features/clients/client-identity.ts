/**
 * Which client a saved configuration is, for the features that keep things per client: its kind
 * and address (what the index is kept by; what a cross-seed run is de-duplicated by). Never the
 * password: the same client with a changed password is the same client.
 */
import type { ClientIdentity } from '../../utils/client-index/indexes-by-client';
import type { StoredClient } from './clients.feature';

export function clientIdentity(config: Pick<StoredClient, 'type' | 'url'>): ClientIdentity {
  return { type: config.type, url: config.url };
}

/** The same as one string; '' for no client. */
export function clientKey(config: Pick<StoredClient, 'type' | 'url'> | undefined): string {
  return config ? `${config.type} ${config.url}` : '';
}
