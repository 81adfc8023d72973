import { describe, expect, it } from 'vitest';
import { madeBy } from '../../web/src/engine-words.ts';
import { permissionWords } from '../../web/src/permission-words.ts';
import { timeLeft } from '../../web/src/time-left.ts';

describe('the web app says things in plain words', () => {
  it('says who made a result instead of the engine’s name', () => {
    expect(madeBy('local-extractive')).toBe('Picked from the transcript on this computer (no AI model)');
    expect(madeBy('local-extractive+flite')).toBe(
      'Picked from the transcript on this computer (no AI model); voices synthesised on this computer',
    );
    expect(madeBy('bedrock:anthropic.claude+polly')).toBe(
      'Written by an AI model on Amazon Bedrock; voices by Amazon Polly',
    );
    expect(madeBy('openai-compatible:llama3')).toBe('Written by your own AI model server');
    expect(madeBy('something-new')).toBe('Made by something-new');
  });

  it('says what a permission allows, one or several', () => {
    expect(permissionWords(['notes:delete'])).toBe('delete notes permanently');
    expect(permissionWords(['notes:read', 'notes:write', 'notes:process'])).toBe(
      'read your notes, rename, trash and organise your notes and transcribe recordings and write summaries',
    );
  });

  it('estimates the time left from the share done and the time it took, only once a tenth is done', () => {
    const started = 1_000_000;
    expect(timeLeft({ progress: 0.05, created_at: started }, started + 60_000)).toBeNull();
    expect(timeLeft({ progress: 0.5, created_at: started }, started + 20_000)).toBe('a minute');
    expect(timeLeft({ progress: 0.25, created_at: started }, started + 120_000)).toBe('6 minutes');
    expect(timeLeft({ progress: 0.1, created_at: started }, started + 3_600_000)).toBe('9 hours');
    expect(timeLeft({ progress: 1, created_at: started }, started + 1000)).toBeNull();
    expect(timeLeft({ created_at: started }, started + 1000)).toBeNull();
  });
});
