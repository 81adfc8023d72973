import { onFirstUse } from '../adapters/loaded-on-first-use.ts';
import { handlerEntry, type OperationId } from '../routes.ts';

/**
 * The handler `name`, imported when first called (as a Lambda's module loads on its first
 * invocation): the start does not wait for modules (the MCP server, Ask, generation) that its first
 * requests may never need. The API's thread and the queue workers' thread each load their own.
 */
export function importedOnFirstCall<T extends (...args: never[]) => Promise<unknown>>(name: string): T {
  // A failed import (a file removed from the start-up bundle) is tried again on the next call.
  const loaded = onFirstUse(() => loadHandler<T>(name));
  const call = async (...args: Parameters<T>) => (await loaded())(...args);
  return call as T;
}

async function loadHandler<T>(name: string): Promise<T> {
  // handlerEntry(name), written as a pattern esbuild can follow: the start-up bundle
  // (scripts/local-server-bundle.mjs) and a thread's bundle then hold every handler, each loaded only
  // when imported.
  const module = (await import(`../../functions/${name}.ts`)) as { handler?: T };
  if (!module.handler) throw new Error(`${handlerEntry(name as OperationId)} does not export a handler`);
  return module.handler;
}
