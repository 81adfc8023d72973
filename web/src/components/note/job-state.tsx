import { useAction } from '../../action.ts';
import { useApp } from '../../context.ts';
import { jobStageLabel } from '../../job-stage.ts';
import type { Note } from '../../types.ts';
import { ActionButton } from '../action-button.tsx';

/** Where the transcription is: its stage while it works, why it failed (with a retry), or nothing. */
export function JobState({ note, onChanged }: { note: Note; onChanged(): void }) {
  const { api, announce } = useApp();
  const retry = useAction(async () => {
    if (!note.audio) return;
    const { data } = await api.request<{ upload?: unknown }>(`/v1/notes/${note.note_id}/transcription`, {
      method: 'POST',
      body: { title: note.title, content_type: note.audio.content_type, size_bytes: note.audio.size_bytes },
    });
    announce(
      data.upload ? 'The recording is gone: upload it again as a new note' : 'Transcription started again',
    );
    onChanged();
  });
  const job = note.transcription_job;
  if (!job || job.status === 'completed') return null;
  if (job.status === 'failed') {
    return (
      <div role="alert" class="error">
        <p>The transcription failed: {job.detail ?? 'no reason was given'}</p>
        {note.audio && (
          <ActionButton action={retry} pendingLabel="Starting again…">
            Try again
          </ActionButton>
        )}
      </div>
    );
  }
  return (
    <div role="status" class="job">
      <span>{jobStageLabel(job)}</span>
      <progress aria-label="Transcription progress" max={1} value={job.progress ?? undefined} />
    </div>
  );
}
