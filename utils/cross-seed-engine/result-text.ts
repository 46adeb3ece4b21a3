/**
 * A cross-seed result in the user's words: each kind maps to one message key (English and
 * Simplified Chinese in public/_locales), with the site's name, the client's words or the file
 * differences as substitutions. Views render the text as text, never as HTML.
 */
import { formatDuration, formatNumber, t, uiLocale, type MessageKey } from '../i18n';
import { CLIENT_NAMES } from '../clients/client-types';
import type { CopyRefusal, CrossSeedResult } from './cross-seed';
import type { UnsafeElement } from '../torrent/files';
import type { FileDifference } from './verify';

export interface Words {
  key: MessageKey;
  substitutions: string[];
}

const UNSAFE_KEYS: Record<UnsafeElement, MessageKey> = {
  empty: 'crossSeedUnsafeEmpty',
  dot: 'crossSeedUnsafeDot',
  separator: 'crossSeedUnsafeSeparator',
  nul: 'crossSeedUnsafeNul',
  'not-utf8': 'crossSeedUnsafeEncoding',
};

const STRAY_KEYS: Record<'removed' | 'already-held' | 'remove-failed', MessageKey> = {
  removed: 'crossSeedStrayRemoved',
  'already-held': 'crossSeedStrayHeld',
  'remove-failed': 'crossSeedStrayLeft',
};

function words(key: MessageKey, ...substitutions: (string | number)[]): Words {
  return { key, substitutions: substitutions.map(String) };
}

function percent(progress: number): string {
  return new Intl.NumberFormat(uiLocale(), { style: 'percent', maximumFractionDigits: 1 }).format(progress);
}

/**
 * Whose torrent the candidate was compared with, in the words: the page's (a cross-seed started on a
 * torrent's page, its popup or a list row), or the user's torrent in their client (the whole-client
 * job, where no page is involved).
 */
export type ComparedWith = 'page' | 'client';

/** Which Unicode normal form a name is in, for the words of a rename that only changed it. */
function unicodeForm(name: string): string {
  if (name === name.normalize('NFC')) return 'NFC';
  if (name === name.normalize('NFD')) return 'NFD';
  return t('unicodeFormMixed');
}

/** The sentence for one result; `site` is the candidate site's name as the view shows it. */
export function crossSeedWords(result: CrossSeedResult, site: string, compared: ComparedWith = 'page'): Words {
  switch (result.kind) {
    case 'added': {
      // The client by the Name the user gave it (outcomes kept from before names: its product name).
      const client = result.clientName ?? CLIENT_NAMES[result.client];
      if (result.renamed) return words('crossSeedAddedRenamed', client);
      return words(result.checked ? 'crossSeedAdded' : 'crossSeedAddedUnchecked', client);
    }
    case 'left-stopped': {
      const client = result.clientName ?? CLIENT_NAMES[result.client];
      // Less than 100 % through a folder pair (nothing at all, even before a check said so): the "Copies go to" client looked in the wrong folder.
      if (result.viaPair && (result.checkFinished || result.progress === 0)) return words('crossSeedPairNotSeen', client, result.savePath, percent(result.progress));
      if (!result.checkFinished) return words('crossSeedCheckUnfinished', client, percent(result.progress));
      return words(result.tagged ? 'crossSeedLeftStopped' : 'crossSeedLeftStoppedNoTags', client, percent(result.progress));
    }
    case 'already-in-client':
      return result.clientName ? words('crossSeedAlreadyInNamed', result.clientName) : words('crossSeedAlreadyInClient');
    case 'no-client':
      return words('crossSeedNoClient');
    case 'read-only':
      return words('crossSeedReadOnly', result.clientName);
    case 'no-folder-pair':
      return words('crossSeedNoFolderPair', result.path, result.clientName, result.targetName);
    case 'target-missing':
      return words('crossSeedTargetMissing', result.clientName);
    case 'no-permission':
      return result.for === 'site' ? words('crossSeedNoPermissionSite', site) : words('crossSeedNoPermissionClient', result.origin);
    case 'bad-request':
      return words('crossSeedBadRequest');
    case 'source-missing':
      return words('crossSeedSourceMissing');
    case 'source-incomplete':
      return words('crossSeedSourceIncomplete', percent(result.progress));
    case 'unsupported-site':
      return result.reason === 'needs-api' ? words('crossSeedNeedsApi', site) : words('crossSeedUnsupportedSite', site);
    case 'needs-passkey':
      return words('crossSeedNeedsPasskey', site);
    case 'needs-api-key':
      return result.refused === undefined ? words('crossSeedNeedsApiKey', site) : words('crossSeedApiKeyRefused', site, result.refused);
    case 'no-download-link':
      return words('crossSeedNoDownloadLink', site);
    case 'not-logged-in':
      if (result.host) return words(result.evidence === 'login-page' ? 'crossSeedMirrorNotLoggedIn' : 'crossSeedMirrorNotLoggedInRedirect', site, result.host);
      return words(result.evidence === 'login-page' ? 'crossSeedNotLoggedIn' : 'crossSeedNotLoggedInRedirect', site);
    case 'other-site-host':
      return words('crossSeedOtherSiteHost', site, result.host, result.owner);
    case 'site-limit':
      return result.retryAfterSeconds ? words('crossSeedSiteLimitFor', site, formatDuration(result.retryAfterSeconds)) : words('crossSeedSiteLimit', site);
    case 'site-refused':
      if (result.status !== undefined && result.status !== 200) return words('crossSeedSiteRefused', site, result.status);
      return words('crossSeedSiteSaid', site, result.siteWords ?? '');
    case 'site-notice':
      return result.siteWords ? words('crossSeedSiteNoticeSaid', site, result.siteWords) : words('crossSeedSiteNotice', site);
    case 'site-challenge':
      return words('crossSeedSiteChallenge', site);
    case 'site-unreachable':
      return words('crossSeedSiteUnreachable', site);
    case 'too-large':
      return words('crossSeedTooLarge', site);
    case 'not-a-torrent':
      return words('crossSeedNotATorrent', site);
    case 'other-torrent':
      return words('crossSeedOtherTorrent', site);
    case 'unsafe-file':
      return words(UNSAFE_KEYS[result.reason], result.path, result.element);
    case 'client-other-hash':
      return words(STRAY_KEYS[result.stray], result.clientHash);
    case 'files-differ':
      // An outcome stored before the client was kept with it keeps the page's words.
      return compared === 'client' && result.client ? words('crossSeedFilesDifferClient', result.clientName ?? CLIENT_NAMES[result.client]) : words('crossSeedFilesDiffer');
    case 'client-refused':
      if (result.clientName) return result.clientMessage ? words('crossSeedNamedClientRefused', result.clientName, result.clientMessage) : words('crossSeedNamedClientRefusedNoWords', result.clientName);
      return result.clientMessage ? words('crossSeedClientRefused', result.clientMessage) : words('crossSeedClientRefusedNoWords');
    case 'client-failed': {
      const name = result.clientName;
      if (result.failure.kind === 'auth') return name ? words('crossSeedNamedClientAuth', name) : words('crossSeedClientAuth');
      if (result.failure.kind === 'unreachable' || result.failure.kind === 'timeout') return name ? words('crossSeedNamedClientUnreachable', name) : words('crossSeedClientUnreachable');
      const said = result.failure.clientMessage || result.failure.kind;
      return name ? words('crossSeedNamedClientOther', name, said) : words('crossSeedClientOther', said);
    }
    case 'not-confirmed':
      return words('crossSeedNotConfirmed');
    case 'site-skipped':
      return words('crossSeedSiteSkipped', site);
    case 'daily-cap':
      return words('crossSeedDailyCap', site, result.perDay);
  }
}

/** One line per listed file difference; `client` names the client where the torrent compared with is the user's torrent there. */
export function differenceWords(difference: FileDifference, client?: string): Words {
  switch (difference.kind) {
    case 'missing':
      return client ? words('crossSeedDiffMissingClient', difference.path, client) : words('crossSeedDiffMissing', difference.path);
    case 'extra':
      return client ? words('crossSeedDiffExtraClient', difference.path, client) : words('crossSeedDiffExtra', difference.path);
    case 'size':
      return client
        ? words('crossSeedDiffSizeClient', difference.path, formatNumber(difference.clientSize), formatNumber(difference.size), client)
        : words('crossSeedDiffSize', difference.path, formatNumber(difference.clientSize), formatNumber(difference.size));
    case 'unicode-form':
      return client ? words('crossSeedDiffUnicodeFormClient', difference.path, client) : words('crossSeedDiffUnicodeForm', difference.path);
  }
}

export function textOf(entry: Words): string {
  return t(entry.key, ...entry.substitutions);
}

/** Why a copy with the same bytes under other names was not added, in one line. */
export function copyRefusalWords(copy: CopyRefusal): Words {
  switch (copy.kind) {
    case 'client-cannot':
      if (copy.renames === 'root-folder') return words('crossSeedCopyClientRootFolderOnly', CLIENT_NAMES[copy.client]);
      if (copy.renames === 'none') return words('crossSeedCopyClientNoRename', CLIENT_NAMES[copy.client]);
      return words('crossSeedCopyClientCannot', CLIENT_NAMES[copy.client]);
    case 'unsafe-target':
      return words('crossSeedCopyUnsafeTarget', copy.path);
    case 'colliding-targets':
      return words('crossSeedCopyColliding', copy.path);
    case 'setting-off':
      return words('crossSeedCopySettingOff');
  }
}

/**
 * The whole message, one line each: the sentence; for `files-differ` why a same-bytes copy was not
 * taken, the listed differences and how many more; for a renamed copy each file renamed, old → new.
 */
export function crossSeedText(result: CrossSeedResult, site: string, compared: ComparedWith = 'page'): string[] {
  const lines = [textOf(crossSeedWords(result, site, compared))];
  if (result.kind === 'files-differ') {
    if (result.copy) lines.push(textOf(copyRefusalWords(result.copy)));
    const client = compared === 'client' && result.client ? (result.clientName ?? CLIENT_NAMES[result.client]) : undefined;
    lines.push(...result.differences.map((difference) => textOf(differenceWords(difference, client))));
    if (result.more > 0) lines.push(t('crossSeedDiffMore', formatNumber(result.more)));
  }
  if ((result.kind === 'added' || result.kind === 'left-stopped') && result.renamed) {
    for (const file of result.renamed) {
      if (file.from === file.to) continue;
      // The same name in another Unicode form (a macOS-made torrent's NFD against NFC on disk): said so, not as two names that look alike.
      if (file.from.normalize('NFC') === file.to.normalize('NFC')) lines.push(t('crossSeedRenamedUnicodeForm', file.to, unicodeForm(file.from), unicodeForm(file.to)));
      else lines.push(t('crossSeedRenamedFile', file.from, file.to));
    }
  }
  return lines;
}
