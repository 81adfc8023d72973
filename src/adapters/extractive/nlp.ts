import model from 'wink-eng-lite-web-model';
import winkNLP, { type WinkMethods } from 'wink-nlp';

let instance: WinkMethods | undefined;

/**
 * One shared wink-nlp instance, created on first use: loading the model takes tens of milliseconds
 * and allocates its lexicon, which callers that never generate Insights should not pay for.
 */
export function nlp(): WinkMethods {
  instance ??= winkNLP(model);
  return instance;
}
