import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { layoutMismatch, loadWhisperApi } from '../../src/adapters/speech/whisper/whisper-c-api.ts';
import { whisperBinding } from '../../src/adapters/speech/whisper/whisper-speech-to-text.ts';

/**
 * whisper.cpp's C API through koffi: the structs declared in whisper-c-api.ts must match the installed
 * binding's, or every parameter handed to whisper.cpp would be read from the wrong bytes.
 */
describe("whisper.cpp's C API", () => {
  it("reads whisper.cpp's own defaults through the declared structs in the installed binding", () => {
    const binding = whisperBinding();
    if ('problem' in binding) throw new Error(binding.problem);
    const api = loadWhisperApi(createRequire(import.meta.url)(binding.koffi), binding.path);
    expect(api.version).toMatch(/^1\.9\./);
  });

  it('names the first field that reads otherwise than whisper.cpp sets it', () => {
    const read = { n_max_text_ctx: 16384, greedy: { best_of: 5 }, vad_params: { threshold: 0 } };
    const expected = { n_max_text_ctx: 16384, 'greedy.best_of': 5, 'vad_params.threshold': 0.5 };
    expect(layoutMismatch(read, expected)).toBe('vad_params.threshold reads 0, not 0.5');
  });

  it('takes floats as equal within float precision, and a missing field as a mismatch', () => {
    expect(layoutMismatch({ thold_pt: Math.fround(0.01) }, { thold_pt: 0.01 })).toBeUndefined();
    expect(layoutMismatch({}, { vad: false })).toBe('vad reads undefined, not false');
  });
});
