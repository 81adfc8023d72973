// @ts-check
/**
 * A note as one Markdown file for a notes vault (Obsidian, Logseq): YAML front matter, then the
 * Insights that exist, then the transcript with speakers and timestamps.
 */

/**
 * Changes whenever the layout below does, so that files are rendered again (state.mjs `layout`).
 */
export const LAYOUT = 'notes-export-2';

/**
 * @typedef {object} Segment
 * @property {number} start_ms
 * @property {number} end_ms
 * @property {string} speaker
 * @property {string} speaker_label
 * @property {string} text
 *
 * @typedef {object} CitedText
 * @property {string} text
 *
 * @typedef {object} Insights
 * @property {number} generated_at
 * @property {number} [transcript_revision]
 * @property {boolean} [outdated]
 * @property {string[]} [outdated_reasons] `transcript`, `instructions`
 * @property {CitedText} summary
 * @property {CitedText[]} key_points
 * @property {{ text: string, owner: string | null, due_date: string | null }[]} action_items
 * @property {CitedText[]} decisions
 * @property {CitedText[]} open_questions
 *
 * @typedef {object} Transcription
 * @property {Segment[]} conversation_segments
 * @property {number} [duration_ms]
 * @property {number} [revision]
 * @property {{ code: string, detail: string } | null} [notice]
 *
 * @typedef {object} Note getNote's answer, the parts the export uses
 * @property {string} note_id
 * @property {string} title
 * @property {'active' | 'trashed'} state
 * @property {number} created_at
 * @property {string} transcription_status
 * @property {Record<string, string>} speaker_names
 * @property {{ collection_id: string, name: string }[]} collections
 * @property {Transcription | null} transcription
 * @property {Insights | null} insights
 */

/**
 * The web app's page of a note (web/src/router.ts: hash routes, `#/notes/<id>`).
 * @param {string} appUrl without a trailing slash
 * @param {string} noteId
 * @returns {string}
 */
export function noteUrl(appUrl, noteId) {
  return `${appUrl}/#/notes/${encodeURIComponent(noteId)}`;
}

/**
 * @param {Note} note a note whose transcription completed
 * @param {{ appUrl: string }} options
 * @returns {string}
 */
export function renderNote(note, { appUrl }) {
  const transcription = note.transcription;
  const segments = transcription?.conversation_segments ?? [];
  const durationMs = transcription?.duration_ms ?? Math.max(0, ...segments.map((s) => s.end_ms));
  const longForm = durationMs >= 3_600_000;
  /** @param {Segment} segment */
  const speakerOf = (segment) => note.speaker_names[segment.speaker_label] ?? segment.speaker;
  const speakers = [...new Set(segments.map(speakerOf))];
  const insights = note.insights;

  const frontMatter = [
    '---',
    `title: ${quoted(note.title)}`,
    `note_id: ${note.note_id}`,
    `created: ${localDate(note.created_at)}`,
    `created_at: ${quoted(new Date(note.created_at).toISOString())}`,
    `duration: ${quoted(timestamp(durationMs, longForm))}`,
    ...yamlList('speakers', speakers),
    ...yamlList(
      'collections',
      note.collections.map((collection) => collection.name),
    ),
    `url: ${quoted(noteUrl(appUrl, note.note_id))}`,
    `transcript_revision: ${transcription?.revision ?? 0}`,
    `insights_generated_at: ${insights ? quoted(new Date(insights.generated_at).toISOString()) : 'null'}`,
    '---',
  ];

  const body = [`# ${inline(note.title)}`];
  if (transcription?.notice && transcription.notice.code !== 'no_speech') {
    body.push('', `> [!warning] ${inline(transcription.notice.detail)}`);
  }
  if (insights) body.push(...insightSections(insights));
  body.push('', '## Transcript', '');
  if (segments.length === 0) body.push('_No speech was heard in this recording._');
  else {
    body.push(
      segments
        .map(
          (segment) =>
            `**${inline(speakerOf(segment))}** (${timestamp(segment.start_ms, longForm)}): ${inline(segment.text)}`,
        )
        .join('\n\n'),
    );
  }
  return `${[...frontMatter, '', ...body].join('\n')}\n`;
}

/**
 * Why the Insights may no longer match, in the service's reasons (a correction, new instructions).
 * @param {string[]} reasons
 * @returns {string}
 */
function outdatedNote(reasons) {
  const corrected = reasons.includes('transcript');
  const instructed = reasons.includes('instructions');
  if (corrected && instructed) {
    return 'The transcript was corrected and the collections’ instructions changed after these Insights were generated.';
  }
  if (instructed) {
    return 'The collections’ instructions changed after these Insights were generated: they follow the earlier ones.';
  }
  return 'The transcript was corrected after these Insights were generated: they may quote or miss what it says now.';
}

/**
 * The Insights' sections, each only when it has something.
 * @param {Insights} insights
 * @returns {string[]}
 */
function insightSections(insights) {
  const lines = [];
  if (insights.outdated) lines.push('', `> [!note] ${outdatedNote(insights.outdated_reasons ?? [])}`);
  if (insights.summary?.text) lines.push('', '## Summary', '', inline(insights.summary.text));
  if (insights.action_items.length) {
    lines.push('', '## Action items', '');
    for (const item of insights.action_items) {
      const details = [
        item.owner ? `owner: ${inline(item.owner)}` : '',
        item.due_date ? `due: ${inline(item.due_date)}` : '',
      ].filter(Boolean);
      lines.push(`- ${inline(item.text)}${details.length ? ` (${details.join('; ')})` : ''}`);
    }
  }
  /** @type {[string, CitedText[]][]} */
  const lists = [
    ['Decisions', insights.decisions],
    ['Open questions', insights.open_questions],
    ['Key points', insights.key_points],
  ];
  for (const [heading, items] of lists) {
    if (!items.length) continue;
    lines.push('', `## ${heading}`, '', ...items.map((item) => `- ${inline(item.text)}`));
  }
  return lines;
}

/**
 * `m:ss`, or `h:mm:ss` for a recording of an hour or more (every timestamp of a note alike).
 * @param {number} ms
 * @param {boolean} longForm
 * @returns {string}
 */
export function timestamp(ms, longForm) {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const seconds = String(total % 60).padStart(2, '0');
  const minutes = Math.floor(total / 60);
  if (!longForm) return `${minutes}:${seconds}`;
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}:${seconds}`;
}

/**
 * The day a note was made, in the exporting machine's time zone (a vault's date property).
 * @param {number} epochMs
 * @returns {string} YYYY-MM-DD
 */
function localDate(epochMs) {
  const date = new Date(epochMs);
  const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * A YAML double-quoted scalar: JSON's string syntax is valid YAML, and quoting keeps values such as
 * `0:25` or `no` from being read as numbers or booleans.
 * @param {string} value
 * @returns {string}
 */
function quoted(value) {
  return JSON.stringify(value);
}

/**
 * @param {string} key
 * @param {string[]} values
 * @returns {string[]}
 */
function yamlList(key, values) {
  return values.length ? [`${key}:`, ...values.map((value) => `  - ${quoted(value)}`)] : [`${key}: []`];
}

/**
 * Text from the service as one line of Markdown that is shown as written: line breaks become
 * spaces, and characters that would start formatting, links, HTML or (in Obsidian) tags are escaped.
 * @param {string} text
 * @returns {string}
 */
function inline(text) {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>#|~=$]/g, (character) => `\\${character}`)
    .replace(/^[-+](?= )/, (marker) => `\\${marker}`) // would open a list at the start of a line
    .replace(/^(\d+)([.)])(?= )/, '$1\\$2');
}
