// The Ask Lambda imports `./answer.ts` directly: this barrel also loads the wink-nlp model.
export { ExtractiveAnswerEngine, extractiveAnswer } from './answer.ts';
export { ExtractiveArtifactEngine, extractArtifact } from './artifacts/engine.ts';
export { ExtractiveInsightsEngine, extractInsights } from './engine.ts';
