import type { TranscriptNotice } from './types.ts';

/**
 * A transcript's notice said for the person reading it in the app. The service's `detail` is written
 * for whoever calls the API and names operator settings and API operations (which engine to
 * configure, which operations to call); here it says what happened and what can be done in the app
 * itself. An unknown code keeps the service's own words.
 */
export function noticeWords(notice: TranscriptNotice, confidence: number | null | undefined): string {
  switch (notice.code) {
    case 'no_speech':
      return (
        'No speech was heard in this recording (it sounds like music, tones, noise or silence), so the ' +
        'transcript is empty. If someone does speak in it, check that the right file was uploaded.'
      );
    case 'low_confidence': {
      const share = typeof confidence === 'number' ? ` (confidence ${Math.round(confidence * 100)} %)` : '';
      return (
        `The recogniser could not follow this recording${share}, so most of these words are guesses. It ` +
        'may be in a language it does not know, or too noisy. Click a word to hear that moment; Edit on a ' +
        'segment (or a double click on its words) corrects it. For recordings in other languages, ask ' +
        'whoever runs this service for a recogniser that knows them.'
      );
    }
    case 'engine_fallback':
      return (
        'This transcript was made by the simpler recogniser, which makes more mistakes, because the ' +
        'usual one could not run on this service. Check the words against the recording: click a word to ' +
        'hear that moment; Edit on a segment (or a double click on its words) corrects it. Whoever runs ' +
        'this service can set up the usual recogniser again.'
      );
    default:
      return notice.detail;
  }
}
