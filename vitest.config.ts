import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    // Tests never fetch a Whisper model: pocketsphinx unless a test names another engine. The AWS
    // SDK's warning about Node's version is said once for the run (test/support/global-setup.ts).
    env: {
      POWERTOOLS_METRICS_DISABLED: 'true',
      NOTES_SPEECH_ENGINE: 'local',
      NOTES_VOICE_MODEL: 'off',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    globalSetup: ['test/support/global-setup.ts'],
    // Quiet while tests pass: what a passing test (or the services it runs) printed is not shown;
    // a failing test shows its own lines and the last lines of the services it started.
    silent: 'passed-only',
    setupFiles: ['test/support/service-logs-on-failure.ts'],
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
