import { sdkNodeNoticeOnce } from '../../src/local/sdk-node-notice.ts';

/**
 * Once per `npm test`, before any test file runs: the AWS SDK's warning about Node's version is said
 * here in one line, and turned off for the test files' processes and the services they start (the
 * switch is in the environment they inherit; vitest.config.ts sets it for the test processes too).
 */
export default function setup(): void {
  const notice = sdkNodeNoticeOnce(process.env);
  if (notice) console.warn(notice);
}
