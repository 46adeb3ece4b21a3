import { defineConfig } from 'vitest/config';
import { WxtVitest } from 'wxt/testing/vitest-plugin';

export default defineConfig({
  plugins: [WxtVitest()],
  test: {
    // Two files at a time, e2e included: a browser spends most of its time waiting on I/O, so two
    // fit on 2 cores and the whole suite takes minutes, not many minutes.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.{ts,tsx}', 'test/service/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['test/unit/support/setup.ts'],
          // The property tests take 1-4 s alone; on 2 cores shared with browsers they need more
          // than Vitest's 5 s default. A hang still fails, later.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
