// @ts-check

import { CliError, UsageError } from './errors.mjs';
import { EXIT } from './exit-codes.mjs';
import { addSecret } from './output.mjs';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';

/**
 * @typedef {object} Config
 * @property {string} baseUrl without a trailing slash
 * @property {string} apiKey
 */

/**
 * Reads NOTES_BASE_URL and NOTES_API_KEY. Called only by commands that talk to the API, after their
 * arguments were validated.
 * @param {NodeJS.ProcessEnv} env
 * @returns {Config}
 */
export function readConfig(env) {
  const apiKey = (env.NOTES_API_KEY ?? '').trim();
  addSecret(apiKey);
  const baseUrl = readBaseUrl(env);
  if (!apiKey) {
    throw new CliError(
      'NOTES_API_KEY is not set. Set it to your API key (it begins with svc_sk_), e.g. export NOTES_API_KEY=svc_sk_...',
      EXIT.AUTH,
    );
  }
  return { baseUrl, apiKey };
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @returns {string}
 */
export function readBaseUrl(env) {
  const raw = (env.NOTES_BASE_URL ?? '').trim() || DEFAULT_BASE_URL;
  /** @type {URL} */
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`NOTES_BASE_URL is not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`NOTES_BASE_URL must be an http:// or https:// URL: ${raw}`);
  }
  return raw.replace(/\/+$/, '');
}
