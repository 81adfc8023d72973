/**
 * Runs inside the Lambda runtime's Node (22) in its own process, as Lambda's runtime does: imports one
 * bundle's handler, invokes it once with the event read from stdin, and prints the outcome on the last
 * stdout line after a marker (the lines before are the handler's own logs). Plain JavaScript, no
 * imports but Node's: nothing of the repository may be loaded besides the bundle.
 *
 * Usage: node invoke-bundle.mjs <asset dir> <function name> <timeout ms> [load] < event.json
 * With `load`, the bundle is only imported (what a cold start does) and the handler's type reported.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const RESULT_MARKER = '@@notes-invoke-result@@';

const [assetDir, functionName, timeoutArg, mode] = process.argv.slice(2);
const timeoutMs = Number(timeoutArg);

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function lambdaContext() {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'deployed-artifact-test',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

let outcome;
try {
  const event = JSON.parse(await readStdin());
  // Lambda's handler setting is `index.handler`.
  const { handler } = await import(pathToFileURL(join(assetDir, 'index.mjs')).href);
  if (typeof handler !== 'function') throw new Error('index.mjs exports no function named handler');
  const result = mode === 'load' ? typeof handler : await handler(event, lambdaContext());
  outcome = { ok: true, result: result ?? null };
} catch (error) {
  outcome = {
    ok: false,
    error: {
      name: error?.name ?? 'Error',
      message: String(error?.message ?? error),
      code: error?.code,
    },
  };
}
process.stdout.write(`\n${RESULT_MARKER}${JSON.stringify(outcome)}\n`, () => process.exit(0));
