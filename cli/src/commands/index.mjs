// @ts-check
import { artifactsGroup } from './artifacts.mjs';
import { ask } from './ask.mjs';
import { authGroup } from './auth.mjs';
import { collectionsGroup } from './collections.mjs';
import { exportNotes } from './export.mjs';
import { insightsGroup } from './insights.mjs';
import { keysGroup } from './keys.mjs';
import { notesGroup } from './notes.mjs';
import { search } from './search.mjs';
import { sessionsGroup } from './sessions.mjs';
import { transcribe } from './transcribe.mjs';
import { transcriptionGroup } from './transcription.mjs';
import { voicesGroup } from './voices.mjs';
import { watchCommand } from './watch.mjs';

/** Commands without a group: `notes transcribe`, `notes ask`, `notes search`. */
export const TOP_LEVEL = [transcribe, ask, search, exportNotes, watchCommand];

/** `notes <group> <command>`. */
export const GROUPS = [
  authGroup,
  notesGroup,
  collectionsGroup,
  transcriptionGroup,
  insightsGroup,
  artifactsGroup,
  keysGroup,
  sessionsGroup,
  voicesGroup,
];
