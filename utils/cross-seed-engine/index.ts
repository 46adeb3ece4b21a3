/**
 * Cross-seeding, for the background: `crossSeed` for one candidate on a click, `crossSeedAll` for
 * "Cross-seed all"; results are values with a kind, put into words by messages.ts.
 */
export { crossSeed, crossSeedAll, finishAddedStopped, CROSS_SEED_TAG, INCOMPLETE_TAG, MAX_PER_CROSS_SEED_ALL, permissionPattern } from './cross-seed';
export type { CrossSeedAllEvent, CrossSeedCandidate, CrossSeedEnvironment, CrossSeedResult, CrossSeedResultKind, CrossSeedTarget } from './cross-seed';
export { SitePace, sitePace, SITE_GAP_MS } from './site-queue';
export type { SiteProblem } from './site-queue';
export { downloadSource, downloadLinkFromPage } from './source';
export type { DownloadSource, SiteSettings } from './source';
export type { FileDifference } from './verify';
export { crossSeedText, crossSeedWords, differenceWords, textOf, type Words } from './result-text';
export { renamePlanSchema, type RenamePlan } from './renamed-copy';
