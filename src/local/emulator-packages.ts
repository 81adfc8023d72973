/**
 * The emulators' packages, loaded together by src/local/emulators.ts when the emulators start, in the
 * thread they run in (the API's thread never loads them). Imported statically here, and this module
 * dynamically, so that a bundle that splits its code (the start-up bundle,
 * scripts/local-server-bundle.mjs) keeps the CommonJS packages' named exports: a CommonJS package
 * reached by `import()` itself becomes there a chunk with a default export only.
 */
export { default as dynalite } from 'dynalite';
export { createRequestHandler as createSqsRequestHandler } from 'local-aws-sqs';
export { default as S3rverServer } from 's3rver';
export { default as s3rverAccounts } from 's3rver/lib/models/account.js';
export { DurableFilesystemStore } from './storage/durable-store.ts';
