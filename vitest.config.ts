import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    // Tests never fetch a Whisper model: pocketsphinx unless a test names another engine.
    env: { POWERTOOLS_METRICS_DISABLED: 'true', NOTES_SPEECH_ENGINE: 'local', NOTES_VOICE_MODEL: 'off' },
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.ts'] } },
      // The CLI is published for Node >= 20: its tests run again with the CLI on Node 22 (the
      // tests themselves stay on the Node that runs vitest; test/cli/run-cli.ts picks the CLI's).
      {
        extends: true,
        test: {
          name: 'cli-on-node-22',
          include: ['test/cli/**/*.test.ts'],
          env: { NOTES_TEST_CLI_NODE: '22' },
        },
      },
    ],
  },
});
