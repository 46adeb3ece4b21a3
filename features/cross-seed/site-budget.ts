/**
 * Each site's budget of downloads, shared by every cross-seed (one click, "Cross-seed all", a
 * list row, the whole-client job): its pace as the user set it in "Cross-seed your client"
 * ("Seconds between downloads", default 5; "Downloads per day", default 20, the official IYUU
 * daemon's own defaults) and the downloads it made in the last 24 hours (a rolling window,
 * successes and failures alike). CrossSeeds.run checks the cap before a run and records a download
 * before its first request leaves, and moves its time to the site's answer (`answered`); the job
 * waits the site's seconds between downloads from there.
 */
import { siteDownloadsItem, sitePacesItem, type SitePaceSetting } from './cross-seed.storage';

export const DEFAULT_SECONDS_BETWEEN = 5;
export const DEFAULT_PER_DAY = 20;
export const DAY_MS = 24 * 60 * 60 * 1000;

export class SiteBudget {
  /** Writes of the log, one at a time (read, add, write). */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly now: () => number) {}

  async pace(sid: number): Promise<SitePaceSetting> {
    const stored = (await sitePacesItem.get())[String(sid)];
    return stored ?? { secondsBetween: DEFAULT_SECONDS_BETWEEN, perDay: DEFAULT_PER_DAY };
  }

  async setPace(sid: number, pace: SitePaceSetting): Promise<void> {
    await this.serial(async () => {
      const all = await sitePacesItem.get();
      await sitePacesItem.set({ ...all, [String(sid)]: pace });
    });
  }

  /** Downloads from `sid` in the last 24 hours, oldest first. */
  async recent(sid: number): Promise<number[]> {
    const since = this.now() - DAY_MS;
    return ((await siteDownloadsItem.get())[String(sid)] ?? []).filter((at) => at > since);
  }

  async usedToday(sid: number): Promise<number> {
    return (await this.recent(sid)).length;
  }

  /** Whether the site's "Downloads per day" is reached now. */
  async capReached(sid: number): Promise<{ reached: boolean; perDay: number; used: number }> {
    const [{ perDay }, used] = await Promise.all([this.pace(sid), this.usedToday(sid)]);
    return { reached: used >= perDay, perDay, used };
  }

  /** When the last download from `sid` started (epoch ms), if within 24 hours. */
  async lastAt(sid: number): Promise<number | undefined> {
    return (await this.recent(sid)).at(-1);
  }

  /** One download from `sid` starts now: counted before its request leaves. Its time in the log is returned (see `answered`). */
  record(sid: number): Promise<number> {
    return this.serial(async () => {
      const since = this.now() - DAY_MS;
      const all = await siteDownloadsItem.get();
      const kept: Record<string, number[]> = {};
      for (const [key, times] of Object.entries(all)) {
        const recent = times.filter((at) => at > since);
        if (recent.length) kept[key] = recent;
      }
      const at = this.now();
      kept[String(sid)] = [...(kept[String(sid)] ?? []), at];
      await siteDownloadsItem.set(kept);
      return at;
    });
  }

  /**
   * The site answered a request of the download logged at `at`: its time moves to now, and so does
   * what "Seconds between downloads" is measured from. The site got the request before it answered,
   * so the next request reaches it at least that long after this one, however long each took on the
   * way there (measured from the start, a slow first request would bring the next one closer).
   * Returns the new time (for the download's next request, if any).
   */
  answered(sid: number, at: number): Promise<number> {
    return this.serial(async () => {
      const all = await siteDownloadsItem.get();
      const times = all[String(sid)] ?? [];
      const index = times.lastIndexOf(at);
      const now = Math.max(at, this.now());
      if (index < 0 || now === at) return at;
      // Kept in order: another download on the site may have been counted meanwhile (`lastAt` reads the last).
      const moved = times.map((time, i) => (i === index ? now : time)).sort((a, b) => a - b);
      await siteDownloadsItem.set({ ...all, [String(sid)]: moved });
      return now;
    });
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.writes.then(task);
    this.writes = run.catch(() => undefined);
    return run;
  }
}
