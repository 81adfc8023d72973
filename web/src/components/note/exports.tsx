import { useAction } from '../../action.ts';
import { useApp } from '../../context.ts';
import type { Note } from '../../types.ts';
import { ActionButton } from '../action-button.tsx';

const EXPORTS = [
  { format: 'srt', label: 'SubRip (.srt)' },
  { format: 'vtt', label: 'WebVTT (.vtt)' },
  { format: 'md', label: 'Markdown (.md)' },
] as const;

/** The transcript as a file: subtitles or Markdown, named after the note. */
export function Exports({ note }: { note: Note }) {
  return (
    <section aria-labelledby="exports-title" class="exports">
      <h2 id="exports-title">Export</h2>
      <p class="actions">
        {EXPORTS.map((item) => (
          <ExportButton key={item.format} note={note} format={item.format} label={item.label} />
        ))}
      </p>
    </section>
  );
}

function ExportButton({ note, format, label }: { note: Note; format: string; label: string }) {
  const { api } = useApp();
  const download = useAction(async () => {
    const { data } = await api.request<string>(`/v1/notes/${note.note_id}/transcription`, {
      query: { format },
    });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([data], { type: 'text/plain;charset=utf-8' }));
    link.download = `${note.title.replace(/[^\p{L}\p{N} _-]+/gu, '').trim() || 'transcript'}.${format}`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  });
  return (
    <ActionButton action={download} pendingLabel="Preparing…">
      {label}
    </ActionButton>
  );
}
