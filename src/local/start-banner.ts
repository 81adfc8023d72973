import { relative } from 'node:path';

export interface StartBannerFacts {
  apiUrl: string;
  storageUrl: string;
  dataDir: string;
  /** Where the local account's key is kept. */
  keyFile: string;
  /** The key itself, on the first start only (it is shown once). */
  newApiKey: string | null;
  transcribing: number;
  speech: string;
  speakers: string;
}

/**
 * What `npm start` says once the service answers: first what a person does next (open the web app and
 * sign in with the key), then the CLI, API and MCP for those who script or connect an agent, then the
 * engines and where data lives. Paths are shown relative to the working directory when inside it.
 */
export function startBanner(facts: StartBannerFacts, cwd: string = process.cwd()): string {
  const shown = (path: string) => {
    const inside = relative(cwd, path);
    return inside && !inside.startsWith('..') ? inside : path;
  };
  const keyFile = shown(facts.keyFile);
  const signIn = facts.newApiKey
    ? [
        `  Open ${facts.apiUrl}/ in a browser and sign in with this key:`,
        '',
        `      ${facts.newApiKey}`,
        '',
        `  It is shown once; ${keyFile} keeps it (readable by you only).`,
      ]
    : [`  Open ${facts.apiUrl}/ in a browser and sign in with the key in ${keyFile}.`];
  return [
    'Notes service is running.',
    '',
    ...signIn,
    '',
    `  CLI:  export NOTES_BASE_URL=${facts.apiUrl} NOTES_API_KEY=$(cat ${keyFile})`,
    '        npm run notes -- transcribe meeting.m4a --wait',
    `  API:  ${facts.apiUrl}/v1 (contract: ${facts.apiUrl}/openapi.yaml; the key as a Bearer token)`,
    `  MCP:  ${facts.apiUrl}/mcp (OAuth: your MCP client opens a sign-in page; the same key)`,
    '',
    `  Speech:       ${facts.speech}`,
    `  Speakers:     ${facts.speakers}`,
    `  Transcribing: ${facts.transcribing} at a time (NOTES_TRANSCRIPTION_CONCURRENCY)`,
    `  Data:         ${shown(facts.dataDir)} (uploads go to ${facts.storageUrl})`,
    '',
    'Ctrl-C stops it. Below: what changes, and problems (NOTES_LOG_LEVEL=DEBUG shows every request).',
  ].join('\n');
}
