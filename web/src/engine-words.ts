/**
 * Who made a result, said for a person rather than by engine name (`local-extractive`,
 * `bedrock:<model>+polly`, `openai-compatible:<model>`, `local-pocketsphinx`): where it was made
 * and, for the local extractive engine, that it quotes rather than writes. The engine's own name
 * stays available as a tooltip for whoever needs it.
 */
export function madeBy(engine: string): string {
  const [text = '', voice] = engine.split('+');
  const maker = textMaker(text);
  if (!voice) return maker;
  return `${maker}; voices ${voice === 'polly' ? 'by Amazon Polly' : 'synthesised on this computer'}`;
}

function textMaker(engine: string): string {
  if (engine === 'local-extractive') return 'Picked from the transcript on this computer (no AI model)';
  if (engine.startsWith('local-')) return 'Made on this computer';
  if (engine.startsWith('bedrock')) return 'Written by an AI model on Amazon Bedrock';
  if (engine.startsWith('amazon-transcribe') || engine.startsWith('aws-'))
    return 'Made by Amazon Web Services';
  if (engine.startsWith('openai-compatible')) return 'Written by your own AI model server';
  return `Made by ${engine}`;
}
