// @ts-check
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { flag, integerOption, noteIdArg, stringOption, timeoutOption } from '../args.mjs';
import { mapWithLimit } from '../concurrency.mjs';
import { CONTENT_TYPES } from '../content-types.mjs';
import { CliError, UsageError } from '../errors.mjs';
import { EXIT } from '../exit-codes.mjs';
import { info, printJson, printJsonLine } from '../output.mjs';
import { waitOptions } from './shared.mjs';
import { transcribeFile } from './transcribe-file.mjs';
import { TRANSCRIPTION_TIMEOUT_SECONDS } from './transcription.mjs';

const COMMAND = 'transcribe';
/**
 * Files uploaded and awaited at once: enough to keep a service's workers busy, few enough not to
 * open dozens of uploads from one laptop.
 */
export const CONCURRENT_FILES = 4;

/** @type {import('../types.mjs').CommandSpec} */
export const transcribe = {
  name: 'transcribe',
  summary: 'Upload audio files for transcription (one note each); --wait prints each transcript and note_id',
  operation: 'submitTranscription, then getTranscription',
  args: ['<file...>'],
  options: {
    title: {
      type: 'string',
      value: 'T',
      description: 'Note title (default: the file name); one file only',
    },
    'note-id': {
      type: 'string',
      value: 'UUID',
      description:
        'Note ID to use (default: a new UUID); the same ID resumes or retries that note; one file only',
    },
    'content-type': {
      type: 'string',
      value: 'T',
      description: `Recording type of every file, audio or video (default: from each extension: ${Object.keys(CONTENT_TYPES).join(', ')})`,
    },
    speakers: {
      type: 'string',
      value: 'N',
      description: 'How many people speak, 1 to 10 (diarization hint)',
    },
    ...waitOptions(TRANSCRIPTION_TIMEOUT_SECONDS, 'the transcript'),
  },
  details:
    'Submits the note, then PUTs the file to the returned upload URL with exactly the returned\n' +
    'headers (progress on stderr for files over 1 MiB). Without --wait it prints the job status\n' +
    "(not a result yet; 'notes transcription get <id>' polls it). With --wait it prints the\n" +
    'transcript with the note ID added at the top level (note_id), and on stderr the notice when\n' +
    'no speech was heard (no_speech), the recogniser could not follow it (low_confidence), or a\n' +
    "self-hosted service's fallback engine made it (engine_fallback).\n" +
    '\n' +
    `Several files: each becomes its own note, ${CONCURRENT_FILES} at a time. stdout is JSON Lines, one\n` +
    'line per file as each finishes: {"file", "note_id", ...the document above}, or for a file\n' +
    'that failed {"file", "note_id", "error": {"exit_code", "message"}}. A failed file does not stop\n' +
    'the others; the exit code is that of the first failed file in the order given (0 if none).',
  examples: [
    'notes transcribe meeting.mp3 --title "Weekly product sync" --wait',
    'notes transcribe interview.wav --speakers 2',
    'notes transcribe monday.mp3 tuesday.mp3 wednesday.mp3 --wait',
  ],
  async run({ positionals, values, client }) {
    const noteIdOption = stringOption(values, 'note-id');
    const title = stringOption(values, 'title');
    if (positionals.length > 1 && (noteIdOption !== undefined || title !== undefined)) {
      throw new UsageError('--note-id and --title name one note: use them with one file only', COMMAND);
    }
    const settings = {
      title,
      contentType: stringOption(values, 'content-type'),
      speakers: integerOption(values, 'speakers', 1, 10, COMMAND),
      wait: flag(values, 'wait'),
      timeoutSeconds: timeoutOption(values, TRANSCRIPTION_TIMEOUT_SECONDS, COMMAND),
    };
    const api = client();

    if (positionals.length === 1) {
      // One file keeps its one pretty-printed JSON document, and its errors end the command.
      const noteId = noteIdOption === undefined ? randomUUID() : noteIdArg(noteIdOption, COMMAND);
      const outcome = await transcribeFile(api, positionals[0] ?? '', { ...settings, noteId });
      printJson(outcome.document);
      if (outcome.hint) info(outcome.hint);
      return EXIT.OK;
    }

    const codes = await mapWithLimit(positionals, CONCURRENT_FILES, async (file) => {
      const noteId = randomUUID();
      try {
        const outcome = await transcribeFile(api, file, { ...settings, noteId });
        const document = /** @type {object} */ (outcome.document);
        printJsonLine({ file, note_id: noteId, ...document });
        if (outcome.hint) info(`${basename(file)}: ${outcome.hint}`);
        return EXIT.OK;
      } catch (error) {
        const exitCode = error instanceof CliError ? error.exitCode : EXIT.UNEXPECTED;
        const message = error instanceof Error ? error.message : String(error);
        info(`notes: ${file}: ${message}`);
        printJsonLine({ file, note_id: noteId, error: { exit_code: exitCode, message } });
        return exitCode;
      }
    });
    const failed = codes.filter((code) => code !== EXIT.OK).length;
    if (failed) info(`notes: ${failed} of ${positionals.length} files failed.`);
    return codes.find((code) => code !== EXIT.OK) ?? EXIT.OK;
  },
};
