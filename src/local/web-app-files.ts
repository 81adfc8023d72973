import { APP_PAGE_PATHS, appSecurityHeaders, type WebAppFile, webAppConfig } from '../../web/build.ts';
import { trashDaysSetting } from '../config.ts';
import { WEB_APP_CLIENT_ID } from '../oauth/first-party.ts';
import type { StaticFile } from './api-gateway-adapter.ts';
import { encodeBodies } from './content-encoding.ts';

/**
 * The web app as the local runtime serves it, at `/`: `built` at start (web/build.ts, well under a second),
 * with the same security headers CloudFront sends on AWS, and compressed (brotli, gzip) for clients
 * that accept it, as CloudFront compresses there. The app and the API share this origin, so
 * its configuration is relative: the app resolves it against the address the browser used. The trash
 * period it tells is NOTES_TRASH_DAYS of the environment the runtime was started with (the runtime
 * sets the rest of the environment later, so the whole configuration is not read here).
 */
export function webAppFiles(options: {
  storageOrigin: string;
  built: readonly WebAppFile[];
}): Record<string, StaticFile> {
  const security = appSecurityHeaders({ connect: [options.storageOrigin], media: [options.storageOrigin] });
  const files: Record<string, StaticFile> = {};
  for (const file of options.built) {
    const headers = {
      ...security,
      'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    };
    const served = {
      contentType: file.contentType,
      body: file.body,
      headers,
      encoded: encodeBodies(file.body),
    };
    if (file.path === '/index.html') for (const path of APP_PAGE_PATHS) files[path] = served;
    else files[file.path] = served;
  }
  const config = webAppConfig('', WEB_APP_CLIENT_ID, trashDaysSetting(process.env));

  files['/app/config.json'] = {
    contentType: 'application/json',
    body: JSON.stringify(config),
    headers: { ...security, 'Cache-Control': 'no-cache' },
  };
  return files;
}
