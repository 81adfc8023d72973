import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    env: { POWERTOOLS_METRICS_DISABLED: 'true' },
    hookTimeout: 120_000,
  },
});
