import { loadConfig } from '#src/config.ts';
import { preflightHeaders, REST_CORS } from '#src/http/cors.ts';
import { httpLambda } from '#src/http/http-lambda.ts';
import { header } from '#src/http/request.ts';
import { jsonResponse } from '#src/http/response.ts';

/**
 * CORS preflights of every REST path: allowed for the web app's origin (NOTES_WEB_APP_URL) only.
 * Any other origin gets an answer without CORS headers, which the browser reads as a refusal.
 */
export const handler = httpLambda(
  'restPreflight',
  { onError: () => jsonResponse(500, { detail: 'Internal error' }) },
  async (event) => {
    const webAppOrigin = loadConfig().NOTES_WEB_APP_URL;
    const allowed = webAppOrigin !== undefined && header(event, 'origin') === webAppOrigin;
    return {
      statusCode: 204,
      headers: {
        Vary: 'Origin',
        ...(allowed ? preflightHeaders(webAppOrigin, REST_CORS) : {}),
      },
    };
  },
);
