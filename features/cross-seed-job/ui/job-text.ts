/**
 * The words of "Cross-seed your clients" that are not markup: sizes, the report's groups and the
 * report as plain text (what "Copy report" copies). Rendered as text only, never as HTML.
 */
import { formatDuration, formatNumber, t, uiLocale, type MessageKey } from '../../../utils/i18n';
import { crossSeedText } from '../../../utils/cross-seed-engine/result-text';
import type { JobOutcome, JobOutcomeGroup, JobView } from '../cross-seed-job.messages';

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte', 'petabyte'] as const;

/** "1.4 GB" / "1.4 GB" in the user's locale (powers of 1024, as clients show sizes). */
export function formatBytes(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // Intl's short name of the byte is "byte" whatever the count: "B" like the larger units.
  if (unit === 0) return `${formatNumber(Math.round(value))} B`;
  return new Intl.NumberFormat(uiLocale(), {
    style: 'unit',
    unit: UNITS[unit],
    unitDisplay: 'short',
    maximumFractionDigits: value < 10 ? 2 : 1,
  }).format(value);
}

/** "about 2 min 5 s left", from the pacing (ms). */
export function timeLeftText(ms: number): string {
  return t('jobTimeLeft', formatDuration(Math.ceil(ms / 1000)));
}

/** The report's groups, in the order shown and copied. */
export const GROUPS: { group: JobOutcomeGroup; key: MessageKey }[] = [
  { group: 'added', key: 'jobGroupAdded' },
  { group: 'left-stopped', key: 'jobGroupLeftStopped' },
  { group: 'files-differ', key: 'jobGroupFilesDiffer' },
  { group: 'site-problem', key: 'jobGroupSiteProblem' },
  { group: 'waiting-for-tomorrow', key: 'jobGroupWaiting' },
  { group: 'other', key: 'jobGroupOther' },
];

/**
 * The report's groups, each in the order of its site and torrent id: outcomes land as their checks
 * end (a site goes on while the client checks), which is no order a reader can follow.
 */
export function groupOutcomes(outcomes: JobOutcome[]): Map<JobOutcomeGroup, JobOutcome[]> {
  const groups = new Map<JobOutcomeGroup, JobOutcome[]>();
  for (const outcome of outcomes) {
    const list = groups.get(outcome.group);
    if (list) list.push(outcome);
    else groups.set(outcome.group, [outcome]);
  }
  for (const list of groups.values()) list.sort((a, b) => a.sid - b.sid || a.torrentId - b.torrentId);
  return groups;
}

/** What a client will do: "NAS → Seedbox: 120", or "NAS: 120" for copies into itself. */
export function routeText(sourceName: string, targetName: string, own: boolean, count: number): string {
  return own ? t('jobRouteOwn', sourceName, formatNumber(count)) : t('jobRouteTo', sourceName, targetName, formatNumber(count));
}

/**
 * The client of a torrent: "NAS", or "NAS → Seedbox" when its copy goes to another. For an outcome
 * whose words name a client already ("Added to NAS, seeding"), nothing; nothing either when the
 * job knows no Name for it (a job from before several clients).
 */
export function outcomeClientText(sourceName: string | undefined, targetName: string | undefined, outcome?: JobOutcome): string | undefined {
  if (outcome?.result && 'clientName' in outcome.result && outcome.result.clientName) return undefined;
  if (!sourceName) return targetName;
  return targetName && targetName !== sourceName ? t('jobRouteName', sourceName, targetName) : sourceName;
}

/** How much of a torrent left stopped is already on disk ("3.1 GB of 4 GB on disk"), when known. */
export function onDiskText(outcome: JobOutcome): string | undefined {
  const result = outcome.result;
  if (result?.kind !== 'left-stopped') return undefined;
  return t('jobOnDisk', formatBytes(outcome.bytes * result.progress), formatBytes(outcome.bytes));
}

/**
 * One outcome's lines: the cross-seed result's sentence, then its details one per line (the
 * differences, the files renamed), in the job's words (the user's torrent in their client: no page
 * is involved); or the group's sentence when there is no result.
 */
export function outcomeLines(outcome: JobOutcome, siteName: string): string[] {
  if (outcome.result) return crossSeedText(outcome.result, siteName, 'client');
  if (outcome.group === 'waiting-for-tomorrow') return [t('jobWaitingHint')];
  return [];
}

/** The report as plain text: a heading, then each group with its count and one line per torrent. */
export function reportText(job: JobView, siteName: (sid: number) => string): string {
  const lines = [t('jobReportTitle'), t('jobProgress', formatNumber(job.done), formatNumber(job.total))];
  const groups = groupOutcomes(job.outcomes);
  const names = new Map((job.clients ?? []).map((client) => [client.id, client.name]));
  for (const { group, key } of GROUPS) {
    const list = groups.get(group);
    if (!list?.length) continue;
    lines.push('', `${t(key)} (${formatNumber(list.length)})`);
    for (const outcome of list) {
      const site = siteName(outcome.sid);
      const [sentence, ...more] = outcomeLines(outcome, site);
      const details = [sentence, onDiskText(outcome)].filter(Boolean).join(' ');
      const client = outcomeClientText(names.get(outcome.sourceClientId ?? ''), names.get(outcome.targetClientId ?? outcome.sourceClientId ?? ''), outcome);
      lines.push(`- ${site} #${outcome.torrentId} ${outcome.name}${outcome.detailsUrl ? ` <${outcome.detailsUrl}>` : ''}${client ? ` [${client}]` : ''}${details ? ` — ${details}` : ''}`);
      // The differences and the renamed files, one per line under their torrent (a list, not a run-on sentence).
      for (const line of more) lines.push(`    ${line}`);
    }
  }
  return lines.join('\n');
}
