import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { Exports } from '../components/note/exports.tsx';
import { Filing } from '../components/note/filing.tsx';
import { JobState } from '../components/note/job-state.tsx';
import { NoteKeeping } from '../components/note/keeping.tsx';
import { NoteActions } from '../components/note/manage.tsx';
import { TitleEditor } from '../components/note/title.tsx';
import { NotePanels } from '../components/note-panels.tsx';
import { StatusBadge } from '../components/status.tsx';
import { TranscriptView } from '../components/transcript.tsx';
import { useApp } from '../context.ts';
import type { Saved, TranscriptState } from '../corrections.ts';
import { bytes, when } from '../format.ts';
import { useInterval, useLoad } from '../hooks.ts';
import { Playback } from '../player/playback.ts';
import { PlayerBar } from '../player/player-bar.tsx';
import { href } from '../router.ts';
import type { Note, Transcription } from '../types.ts';

const POLL_MS = 2000;

interface NoteView {
  note: Note;
  etag: string | null;
  transcript: TranscriptState | null;
}

/**
 * A note, built around listening to it: the player stays in view at the top; the summary, chapters
 * and artifacts sit beside the transcript (above it on a phone); the transcript follows playback and
 * is corrected in place. Where the recording is lives in `Playback`, not in this page's state, so
 * playing re-renders only the player and the playing segment. The router gives every note a page of
 * its own (keyed by its ID): nothing here carries over from one note to the next.
 */
export function NotePage({ noteId, startAt }: { noteId: string; startAt: number }) {
  const { api } = useApp();
  const [playback] = useState(() => new Playback());
  // A note opens at its top: a hash change keeps the window's scroll, the page before's.
  useLayoutEffect(() => window.scrollTo(0, 0), []);
  const view = useLoad<NoteView>(noteId, async () => {
    const { data: note, etag } = await api.request<Note>(`/v1/notes/${noteId}`);
    if (note.transcription_job?.status !== 'completed') return { note, etag, transcript: null };
    const transcript = await api.request<Transcription>(`/v1/notes/${noteId}/transcription`);
    return { note, etag, transcript: { data: transcript.data, etag: transcript.etag } };
  });
  const note = view.data?.note ?? null;
  const job = note?.transcription_job ?? null;
  useInterval(job?.status === 'queued' || job?.status === 'processing', POLL_MS, view.reload);

  // A short-lived link (getNoteAudio): fetched again when the player finds it expired, and the
  // recording goes on from where it was.
  const audioLink = useLoad(`${noteId}:audio:${note?.audio?.uploaded_at ?? 'none'}`, async () => {
    if (!note?.audio?.uploaded_at) return null;
    return (await api.request<{ url: string; expires_at: number }>(`/v1/notes/${noteId}/audio`)).data;
  });
  const onAudioError = () => {
    if (!audioLink.data || Date.now() < audioLink.data.expires_at - 5000) return;
    playback.carryOver();
    audioLink.reload();
  };

  // Opened at a cited moment (?t=): the recording starts there once it can play, the transcript shows it.
  useEffect(() => {
    if (Number.isFinite(startAt)) playback.seek(startAt);
  }, [playback, startAt]);

  // An answer holds the new state and ETag: shown at once, so the next action is sent against it,
  // then everything is read again (the reload also cancels a read started before the change).
  const onSaved = (saved: Saved) => {
    const current = view.data;
    if (!current) return;
    view.replace({
      note: saved.note?.note ?? current.note,
      etag: saved.note?.etag ?? current.etag,
      transcript: saved.transcript ?? current.transcript,
    });
    view.reload();
  };

  if (view.error && !note) {
    return (
      <section>
        <h1>Note unavailable</h1>
        <p role="alert" class="error">
          {view.error}
        </p>
        <a href={href('')}>Back to your notes</a>
      </section>
    );
  }
  if (!note || !view.data) return <p aria-busy="true">Loading the note…</p>;
  const transcript = view.data.transcript;

  return (
    <article class="note" aria-labelledby="note-title">
      {/* First in the page's Tab order: Insights and their citations, beside the transcript, come before it. */}
      {transcript && (
        <button type="button" class="skip" onClick={skipToTranscript}>
          Skip to transcript
        </button>
      )}
      <TitleEditor note={note} etag={view.data.etag} onChanged={view.reload} />
      <p class="meta">
        {when(note.created_at)} {note.audio && `· ${bytes(note.audio.size_bytes)}`}{' '}
        <StatusBadge status={note.transcription_status} stage={note.transcription_job?.stage} />
        {note.state === 'trashed' && <span class="badge failed">In the trash</span>}
      </p>
      <Filing note={note} onChanged={view.reload} />
      <NoteKeeping note={note} onChanged={view.reload} />
      {note.audio?.uploaded_at && (
        <PlayerBar
          playback={playback}
          src={audioLink.data?.url ?? null}
          fallbackDurationMs={transcript?.data.duration_ms ?? 0}
          onSourceError={onAudioError}
          video={note.audio.content_type.startsWith('video/')}
        />
      )}
      <JobState note={note} onChanged={view.reload} />
      {transcript && (
        <div class="note-body">
          <NotePanels
            noteId={noteId}
            player={playback}
            transcriptVersion={transcript.etag ?? String(transcript.data.revision ?? 0)}
            filing={note.collections.map((collection) => collection.collection_id).join(' ')}
          />
          <TranscriptView
            noteId={noteId}
            transcript={transcript}
            noteEtag={view.data.etag}
            speakerNames={note.speaker_names}
            voiceMatches={note.voice_matches ?? {}}
            playback={playback}
            onSaved={onSaved}
          />
        </div>
      )}
      {transcript && <Exports note={note} />}
      <NoteActions note={note} etag={view.data.etag} onChanged={view.reload} />
    </article>
  );
}

/** To the transcript past the summary and its citations (the hash is the router's: a button, not a link). */
function skipToTranscript() {
  const heading = document.getElementById('transcript-title');
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus();
}
