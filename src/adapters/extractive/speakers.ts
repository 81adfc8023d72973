import type { ConversationSegment } from '../../domain/transcript.ts';

export interface SpeakerShare {
  speaker: string;
  talk_time_ms: number;
  share: number;
}

/**
 * Talk time per speaker: the summed duration of their segments with text (overlapping speech counts
 * for both speakers). Shares are of the summed talk time, so they add up to 1; most talkative first.
 */
export function speakerShares(segments: readonly ConversationSegment[]): SpeakerShare[] {
  const talk = new Map<string, number>();
  for (const segment of segments) {
    if (segment.text.trim() === '') continue;
    const speaker = segment.speaker.trim() || 'Unknown speaker';
    talk.set(speaker, (talk.get(speaker) ?? 0) + Math.max(0, Math.round(segment.end_ms - segment.start_ms)));
  }
  const total = [...talk.values()].reduce((sum, ms) => sum + ms, 0);
  if (total === 0) return [];
  return [...talk]
    .filter(([, ms]) => ms > 0)
    .map(([speaker, talk_time_ms]) => ({ speaker, talk_time_ms, share: talk_time_ms / total }))
    .sort((a, b) => b.talk_time_ms - a.talk_time_ms || a.speaker.localeCompare(b.speaker));
}
