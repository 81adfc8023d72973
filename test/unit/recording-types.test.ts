import { describe, expect, it } from 'vitest';
import { UnsupportedMediaTypeError } from '../../src/domain/errors.ts';
import {
  AUDIO_CONTENT_TYPES,
  RECORDING_CONTENT_TYPES,
  recordingTypesFor,
  requireReadableRecording,
} from '../../src/domain/recording-types.ts';

describe('which recordings each speech engine reads', () => {
  it('reads every audio and video type with the local engine (ffmpeg decodes them all)', () => {
    expect(recordingTypesFor('local')).toEqual(RECORDING_CONTENT_TYPES);
  });

  it('reads audio, MP4 and WebM on Amazon Transcribe, not MOV or MKV (not among its documented formats)', () => {
    const transcribe = recordingTypesFor('transcribe');
    expect(transcribe).toEqual([...AUDIO_CONTENT_TYPES, 'video/mp4', 'video/webm']);
    expect(recordingTypesFor('openai')).toEqual(transcribe);
  });

  it('refuses a type the engine cannot read with 415 naming every accepted type', () => {
    const accepted = recordingTypesFor('transcribe');
    const refusal = (() => {
      try {
        requireReadableRecording(accepted, 'video/quicktime');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(UnsupportedMediaTypeError);
    expect((refusal as UnsupportedMediaTypeError).status).toBe(415);
    for (const type of accepted) expect((refusal as Error).message).toContain(type);
    expect(() => requireReadableRecording(accepted, 'video/mp4')).not.toThrow();
  });
});
