import type { WinkMethods } from 'wink-nlp';

let instance: WinkMethods | undefined;
let loading: Promise<WinkMethods> | undefined;

/**
 * Loads the one shared wink-nlp instance; the extractive engines await it before they read a
 * transcript. Imported with `import()`, not statically: the model is ~3.5 MB of code and data that
 * takes tens of milliseconds to load, which a process that never generates with the local engine
 * (a Lambda bundle wired for Bedrock, src/wiring/generation-services.ts) should neither load nor ship.
 */
export function loadNlp(): Promise<WinkMethods> {
  loading ??= Promise.all([import('wink-nlp'), import('wink-eng-lite-web-model')]).then(
    ([{ default: winkNLP }, { default: model }]) => {
      instance = winkNLP(model);
      return instance;
    },
  );
  return loading;
}

/** The instance `loadNlp` loaded; reading a transcript before that is a mistake of the caller. */
export function nlp(): WinkMethods {
  if (!instance) throw new Error('wink-nlp is not loaded: await loadNlp() first');
  return instance;
}
