export { ExtractiveInsightsEngine, extractInsights } from './engine.ts';
