import { describe, expect, it } from 'vitest';
import { buildArtifactPrompt } from '../../src/adapters/llm/artifact-prompt.ts';
import { buildInsightsPrompt } from '../../src/adapters/llm/prompt.ts';
import type { Artifact } from '../../src/domain/artifacts.ts';
import type { TagCondition } from '../../src/domain/entity-tags.ts';
import { UnprocessableError } from '../../src/domain/errors.ts';
import type { Insights } from '../../src/domain/insights.ts';
import { artifactWithNames, insightsWithNames } from '../../src/domain/named-results.ts';
import { labelForSpeaker, namedInText, nextFreeLabel } from '../../src/domain/speaker-labels.ts';
import { type ConversationSegment, withSegments } from '../../src/domain/transcript.ts';
import { transcriptionView } from '../../src/domain/transcript-exports.ts';
import {
  matchesRepresentationOf,
  matchesSegmentsOf,
  transcriptEntityTag,
} from '../../src/domain/transcript-tags.ts';

const segment = (start_ms: number, speaker: string, text: string): ConversationSegment => ({
  start_ms,
  end_ms: start_ms + 1000,
  speaker,
  text,
  has_overlap: false,
});

const stored = withSegments({ duration_ms: 5000, language: 'en-US', engine: 'test' }, [
  segment(0, 'Speaker 1', 'We ship on Friday.'),
  segment(1000, 'Speaker 10', 'I will tell marketing.'),
  segment(2000, 'Speaker 2', 'Fine by me.'),
]);

const tagged = (tag: string): TagCondition => ({ kind: 'tags', tags: [{ weak: false, opaque: tag }] });

describe('labels in text', () => {
  it('replaces whole labels only: "Speaker 1" never rewrites "Speaker 10"', () => {
    const names = { 'Speaker 1': 'Alice', 'Speaker 10': 'Jo' };
    expect(namedInText('Speaker 1 asked Speaker 10 and Speaker 2 (Speaker 1).', names)).toBe(
      'Alice asked Jo and Speaker 2 (Alice).',
    );
    expect(namedInText('Speaker 100 and Speaker 1x', { 'Speaker 1': 'Alice' })).toBe(
      'Speaker 100 and Alice' + 'x',
    );
  });

  it('maps set_speaker input to a label: labels (new ones too) as they are, names to their label, anything else refused', () => {
    const present = new Set(['Speaker 1', 'Speaker 2']);
    const names = { 'Speaker 1': 'Alice', 'Speaker 3': 'Bob' };
    expect(labelForSpeaker('Speaker 7', names, present, 'edits[0]')).toBe('Speaker 7');
    expect(labelForSpeaker('Alice', names, present, 'edits[0]')).toBe('Speaker 1');
    expect(labelForSpeaker('Bob', names, present, 'edits[0]')).toBe('Speaker 3');
    expect(() => labelForSpeaker('Mallory', names, present, 'edits[0] (set_speaker)')).toThrow(
      /edits\[0\] \(set_speaker\): "Mallory" is neither .*the next free one is "Speaker 4"/,
    );
    expect(() => labelForSpeaker('Sam', { 'Speaker 1': 'Sam', 'Speaker 2': 'Sam' }, present, 'e')).toThrow(
      UnprocessableError,
    );
    // A transcript from an engine with other labels keeps working with its own.
    expect(labelForSpeaker('spk_x', {}, new Set(['spk_x']), 'e')).toBe('spk_x');
  });

  it('the next free label skips labels in use and labels that have a name', () => {
    expect(nextFreeLabel(['Speaker 1', 'Speaker 3'], {})).toBe('Speaker 2');
    expect(nextFreeLabel(['Speaker 1', 'Speaker 3'], { 'Speaker 2': 'Bob' })).toBe('Speaker 4');
  });
});

describe('the transcript ETag', () => {
  const plain = transcriptionView(stored, {});
  const named = transcriptionView(stored, { 'Speaker 1': 'Alice' });

  it('changes with the names (the body does), so If-None-Match never matches a renamed transcript', () => {
    expect(named.conversation_segments[0]).toMatchObject({ speaker: 'Alice', speaker_label: 'Speaker 1' });
    expect(transcriptEntityTag(named)).not.toBe(transcriptEntityTag(plain));
    expect(transcriptEntityTag(named)).toMatch(/^"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}"$/);
  });

  it('matches a correction made against the same segments under other names, not other segments', () => {
    const renamedTag = tagged(transcriptEntityTag(named));
    expect(matchesSegmentsOf(tagged(transcriptEntityTag(plain)), named)).toBe(true);
    expect(matchesSegmentsOf(renamedTag, plain)).toBe(true);
    expect(matchesRepresentationOf(renamedTag, plain)).toBe(false);
    const corrected = transcriptionView(
      withSegments(stored, [
        segment(0, 'Speaker 1', 'We ship on Monday.'),
        ...stored.conversation_segments.slice(1),
      ]),
      {},
    );
    expect(matchesSegmentsOf(renamedTag, corrected)).toBe(false);
    const relabelled = transcriptionView(
      withSegments(stored, [
        segment(0, 'Speaker 2', 'We ship on Friday.'),
        ...stored.conversation_segments.slice(1),
      ]),
      {},
    );
    expect(matchesSegmentsOf(renamedTag, relabelled)).toBe(false);
    expect(
      matchesSegmentsOf({ kind: 'tags', tags: [{ weak: true, opaque: transcriptEntityTag(plain) }] }, plain),
    ).toBe(false);
    expect(matchesSegmentsOf(tagged('"not-a-transcript-tag"'), plain)).toBe(false);
    expect(matchesSegmentsOf({ kind: 'any' }, plain)).toBe(true);
  });
});

describe('generated results show the names of now', () => {
  const insights: Insights = {
    note_id: 'n',
    schema_version: 1,
    engine: 'test',
    generated_at: 0,
    summary: { text: 'Speaker 1 and Speaker 10 agree to ship.', citations: [0] },
    key_points: [],
    topics: [],
    action_items: [{ text: 'Tell marketing.', owner: 'Speaker 10', due_date: null, citations: [1000] }],
    decisions: [],
    open_questions: [],
    chapters: [],
    speakers: [
      { speaker: 'Speaker 1', talk_time_ms: 1000, share: 0.5 },
      { speaker: 'Speaker 10', talk_time_ms: 1000, share: 0.5 },
    ],
  };

  it('Insights: talk time by name with its label, owners and texts by name', () => {
    const shown = insightsWithNames(insights, { 'Speaker 1': 'Alice', 'Speaker 10': 'Jo' });
    expect(shown.speakers).toEqual([
      { speaker: 'Alice', speaker_label: 'Speaker 1', talk_time_ms: 1000, share: 0.5 },
      { speaker: 'Jo', speaker_label: 'Speaker 10', talk_time_ms: 1000, share: 0.5 },
    ]);
    expect(shown.action_items[0]?.owner).toBe('Jo');
    expect(shown.summary.text).toBe('Alice and Jo agree to ship.');
    expect(insightsWithNames(insights, undefined).speakers[0]).toEqual({
      speaker: 'Speaker 1',
      speaker_label: 'Speaker 1',
      talk_time_ms: 1000,
      share: 0.5,
    });
  });

  it('artifacts: every text of the content by name; the title stays the note’s', () => {
    const artifact: Artifact<'epiphany'> = {
      note_id: 'n',
      kind: 'epiphany',
      schema_version: 1,
      title: 'Speaker 1 sync: epiphanies',
      language: 'en',
      engine: 'test',
      generated_at: 0,
      content: {
        ideas: [
          {
            title: 'Speaker 1 depends on Speaker 2',
            connection: 'At 00:00 (Speaker 1) and 00:02 (Speaker 2).',
            implication: 'Speaker 2 should know.',
            evidence: [{ start_ms: 0, quote: 'We ship on Friday' }],
          },
        ],
      },
    };
    const shown = artifactWithNames(artifact, { 'Speaker 1': 'Alice', 'Speaker 2': 'Bob' });
    expect(shown.title).toBe('Speaker 1 sync: epiphanies');
    expect(shown.content.ideas[0]).toMatchObject({
      title: 'Alice depends on Bob',
      connection: 'At 00:00 (Alice) and 00:02 (Bob).',
      implication: 'Bob should know.',
    });
  });
});

describe('LLM prompts', () => {
  const names = { 'Speaker 1': 'Alice "the PM"' };

  it('show which person each label is and ask for labels back, for Insights and artifacts', () => {
    const insightsPrompt = buildInsightsPrompt({
      transcription: stored,
      speaker_names: names,
      title: 'Sync',
      reference_time: 0,
    });
    expect(insightsPrompt.user).toContain(
      'Speakers (label: the name the user gave them):\nSpeaker 1: "Alice \\"the PM\\""\nTranscript:\n[0] Speaker 1: We ship on Friday.',
    );
    expect(insightsPrompt.system).toMatch(/Refer to a speaker of the transcript by their label/);
    const artifactPrompt = buildArtifactPrompt({
      kind: 'podcast',
      transcription: stored,
      speaker_names: names,
      title: 'Sync',
      language: 'en',
      reference_time: 0,
    });
    expect(artifactPrompt.user).toContain('Speaker 1: "Alice \\"the PM\\""');
    expect(artifactPrompt.system).toMatch(/Refer to a speaker of the transcript by their label/);
  });

  it('leave the speakers block out when no speaker has a name', () => {
    const prompt = buildInsightsPrompt({ transcription: stored, title: 'Sync', reference_time: 0 });
    expect(prompt.user).not.toContain('Speakers (');
  });
});
