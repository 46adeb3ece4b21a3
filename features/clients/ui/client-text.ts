/** A torrent client's answers in the user's words: who it is, what state a torrent is in, why it failed. */
import { CLIENT_NAMES, type ClientInfo, type TorrentState } from '../../../utils/clients/client-types';
import { countKey, formatNumber, t, uiLocale, type MessageKey } from '../../../utils/i18n';
import type { ClientProblem } from '../clients.messages';
import type { ClientRule } from '../client-rules';

/** "Connected: qBittorrent v4.5.2, 123 torrents". */
export function clientInfoText(info: ClientInfo): string {
  return t(countKey(info.torrentCount, 'clientConnectedOne', 'clientConnected'), `${CLIENT_NAMES[info.client]} ${info.version}`, formatNumber(info.torrentCount));
}

const PROBLEM_KEYS: Record<ClientProblem['kind'], MessageKey> = {
  'bad-config': 'clientProblemBadConfig',
  'bad-input': 'clientProblemBadInput',
  auth: 'clientProblemAuth',
  banned: 'clientProblemBanned',
  csrf: 'clientProblemCsrf',
  'not-allowed': 'clientProblemNotAllowed',
  unreachable: 'clientProblemUnreachable',
  certificate: 'clientProblemCertificate',
  timeout: 'clientProblemTimeout',
  'not-connected': 'clientProblemNotConnected',
  refused: 'clientProblemRefused',
  'not-found': 'clientProblemNotFound',
  server: 'clientProblemServer',
  'bad-answer': 'clientProblemBadAnswer',
  'no-permission': 'clientProblemNoPermission',
  'password-needed': 'clientProblemPasswordNeeded',
  'unknown-client': 'clientProblemUnknownClient',
  rule: 'clientProblemBadConfig',
};

/** A rule a list of clients would break (client-rules.ts), in words naming the clients. */
export function clientRuleText(rule: ClientRule): string {
  switch (rule.rule) {
    case 'same-name':
      return t('clientRuleSameName', rule.name);
    case 'copies-chain':
      return t('clientRuleChain', rule.client, rule.target, rule.next);
    case 'copies-loop':
      return t('clientRuleLoop', rule.client, rule.target);
    case 'copies-target-missing':
      return t('clientRuleTargetMissing', rule.client);
    case 'copies-target-read-only':
      return t('clientRuleTargetReadOnly', rule.client, rule.target);
    case 'no-folder-pair':
      return t('clientRuleNoFolderPair', rule.client);
    case 'folder-not-absolute':
      return t('clientRuleFolderNotAbsolute', rule.client, rule.path);
    case 'target-named':
      return t('clientRuleTargetNamed', rule.target, rule.client);
  }
}

/** Why a client could not be used, and what to do: one or two sentences. */
export function clientProblemText(problem: ClientProblem): string {
  if (problem.kind === 'rule' && problem.rule) return clientRuleText(problem.rule);
  const main = t(PROBLEM_KEYS[problem.kind] ?? 'clientProblemBadAnswer', problem.origin ?? '');
  // Browsers say nothing more than "failed" for an https address whose certificate is not trusted.
  return problem.kind === 'unreachable' && problem.certificatePossible ? `${main} ${t('clientProblemCertificateMaybe')}` : main;
}

/** The client's own words, quoted, when it gave any (shown as text, never as HTML). */
export function clientSaidText(problem: ClientProblem): string | undefined {
  const words = problem.clientMessage?.trim();
  return words ? t('clientSaid', words) : undefined;
}

function percent(progress: number): string {
  return new Intl.NumberFormat(uiLocale(), { style: 'percent', maximumFractionDigits: progress > 0.99 && progress < 1 ? 1 : 0 }).format(progress);
}

/** "seeding", "paused", "downloading 42%"… */
export function torrentStateText(state: TorrentState, progress: number): string {
  switch (state) {
    case 'seeding':
      return t('clientStateSeeding');
    case 'downloading':
      return t('clientStateDownloading', percent(progress));
    case 'stalled':
      return t('clientStateStalled', percent(progress));
    case 'paused':
      return progress < 1 ? t('clientStatePausedAt', percent(progress)) : t('clientStatePaused');
    case 'checking':
      return t('clientStateChecking');
    case 'queued':
      return t('clientStateQueued');
    case 'moving':
      return t('clientStateMoving');
    case 'missing':
      return t('clientStateMissing');
    case 'error':
      return t('clientStateError');
    default:
      return t('clientStateUnknown');
  }
}
