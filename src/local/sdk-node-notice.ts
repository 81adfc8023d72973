/** The Node major version the AWS SDK for JavaScript asks for in its releases after January 2027. */
const SDK_NODE_MAJOR = 22;
export const SDK_NODE_WARNING_SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

/**
 * On Node older than the SDK's next requirement, each thread and process that loads an AWS SDK client
 * prints the SDK's ten-line NodeVersionSupportWarning (a run of `npm start` printed it two or three
 * times, `npm test` once per test file). Said once instead: returns one line to print, and turns the
 * SDK's own warning off in `env` (the process's, which threads and child processes inherit). Null
 * when there is nothing to say (Node new enough, or the warning already off).
 */
export function sdkNodeNoticeOnce(
  env: NodeJS.ProcessEnv,
  nodeVersion: string = process.version,
): string | null {
  const major = Number.parseInt(nodeVersion.replace(/^v/, ''), 10);
  if (major >= SDK_NODE_MAJOR || env[SDK_NODE_WARNING_SWITCH] === 'true') return null;
  env[SDK_NODE_WARNING_SWITCH] = 'true';
  return `Node ${nodeVersion}: runs as it is; the AWS SDK's releases after the first week of January 2027 need Node ${SDK_NODE_MAJOR} or newer (https://a.co/c895JFp).`;
}
