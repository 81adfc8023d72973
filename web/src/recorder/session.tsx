import { type ComponentChildren, createContext } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { useApp } from '../context.ts';
import { messageOf } from '../hooks.ts';
import { href, navigate } from '../router.ts';
import type { CollectionRef } from '../types.ts';
import { uploadRecording } from '../upload-recording.ts';
import { fileExtension, recordingTitle, serviceContentType } from './format.ts';
import {
  forgetRecording,
  type KeptRecording,
  keepChunk,
  keepRecording,
  keptAudio,
  keptRecordings,
} from './kept-recordings.ts';
import { holdLock, lockedRecordings } from './live-lock.ts';
import { type Microphone, MicrophoneUnavailable, openMicrophone } from './microphone.ts';
import { elapsedMs, IDLE, isLive, next, type RecorderState } from './state.ts';

/** MediaRecorder hands over (and the app keeps) a piece of audio this often: what a closed tab can lose. */
const CHUNK_MS = 1000;

/** Where the recording goes when it is saved. */
export interface Destination {
  collection: CollectionRef | null;
  speakersExpected: number | undefined;
}

export interface RecorderSession {
  state: RecorderState;
  /** The collection the recording being made (or saved) goes into. */
  destination: Destination | null;
  /** False when this browser could not keep the recording as it is made (no IndexedDB, storage full). */
  keeping: boolean;
  /** Bumped whenever a kept recording is saved or discarded, so lists of them reload. */
  keptVersion: number;
  start(destination: Destination): Promise<void>;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
  discard(): Promise<void>;
  /** Sends again the recording whose save failed. */
  retry(): Promise<void>;
  /** Saves a recording kept from an earlier visit. */
  saveKept(kept: KeptRecording, destination: Destination): Promise<void>;
  discardKept(kept: KeptRecording): Promise<void>;
  /** This account's recordings kept in this browser that no tab is working on: cut short by a closed tab, or never saved. */
  unfinished(): Promise<KeptRecording[]>;
  dismiss(): void;
  /** Input loudness now (0 to 1); 0 when the microphone is closed. */
  level(): number;
}

/** The recording being made: its microphone, its pieces, and the writes keeping them. */
interface Take {
  kept: KeptRecording;
  microphone: Microphone | null;
  contentType: string;
  chunks: Blob[];
  writes: Promise<void>;
  release: () => void;
  /** Discarded: pieces that still arrive are dropped, not kept. */
  discarded: boolean;
}

const Session = createContext<RecorderSession | null>(null);

export function useRecorder(): RecorderSession {
  const session = useContext(Session);
  if (!session) throw new Error('useRecorder outside RecorderProvider');
  return session;
}

/**
 * The microphone recorder for the whole signed-in app: a recording goes on while the person moves
 * between pages, and the page asks before it is closed while one is being made or saved.
 */
export function RecorderProvider({ children }: { children: ComponentChildren }) {
  const { api, announce } = useApp();
  const [state, dispatch] = useReducer(next, IDLE);
  const [destination, setDestination] = useState<Destination | null>(null);
  const [keeping, setKeeping] = useState(true);
  const [keptVersion, setKeptVersion] = useState(0);
  const take = useRef<Take | null>(null);
  const destinationRef = useRef(destination);
  destinationRef.current = destination;
  const stateRef = useRef(state);
  stateRef.current = state;
  const accountId = useRef<Promise<string> | null>(null);

  const account = useCallback(() => {
    accountId.current ??= api.request<{ account_id: string }>('/v1/account').then(
      ({ data }) => data.account_id,
      (error: unknown) => {
        accountId.current = null;
        throw error;
      },
    );
    return accountId.current;
  }, [api]);

  const busy = isLive(state) || state.kind === 'saving';
  useEffect(() => {
    if (!busy) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the dialog only when this is set.
      event.returnValue = '';
    };
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, [busy]);

  /** Sends the take's audio as a note; on failure it stays kept (here and in IndexedDB) to try again. */
  const upload = useCallback(
    async (current: Take, audio: Blob, to: Destination) => {
      try {
        const { noteId, queued } = await uploadRecording(api, {
          file: new File([audio], `${current.kept.title}.${fileExtension(current.contentType)}`, {
            type: current.contentType,
          }),
          contentType: current.contentType,
          title: current.kept.title,
          noteId: current.kept.noteId,
          speakersExpected: to.speakersExpected,
          collection: to.collection,
          onCreated: () => {},
          onProgress: (sent) => dispatch({ type: 'progress', sent, total: audio.size }),
          onStored: () => {
            dispatch({ type: 'stored' });
            // The service has the bytes: a tab closed while it queues them must not offer them again.
            void forgetRecording(current.kept.id).catch(() => undefined);
          },
          untilQueued: true,
        });
        current.release();
        take.current = null;
        setKeptVersion((version) => version + 1);
        dispatch({ type: 'saved' });
        // What is true now: the browser's part is done; the service has queued it (or is about to).
        announce(queued ? 'Recording uploaded and queued for transcription' : 'Recording uploaded');
        navigate(href(`notes/${noteId}`));
      } catch (error) {
        dispatch({ type: 'save-failed', message: messageOf(error) });
      }
    },
    [api, announce],
  );

  const closeMicrophone = (current: Take) => {
    current.microphone?.close();
    current.microphone = null;
  };

  const stop = useCallback(async () => {
    const current = take.current;
    const microphone = current?.microphone;
    if (!current || !microphone || !isLive(stateRef.current)) return;
    dispatch({ type: 'stop', at: Date.now() });
    const { recorder } = microphone;
    // The last piece arrives (dataavailable) before stop does.
    await new Promise<void>((resolve) => {
      recorder.addEventListener('stop', () => resolve(), { once: true });
      recorder.stop();
    });
    closeMicrophone(current);
    await current.writes;
    const audio = new Blob(current.chunks, { type: current.kept.mimeType });
    await upload(current, audio, destinationRef.current ?? { collection: null, speakersExpected: undefined });
  }, [upload]);

  const start = useCallback(
    async (to: Destination) => {
      if (stateRef.current.kind !== 'idle' && stateRef.current.kind !== 'failed') return;
      dispatch({ type: 'ask' });
      const [opened, found] = await Promise.allSettled([openMicrophone(), account()]);
      if (opened.status === 'rejected' || found.status === 'rejected') {
        if (opened.status === 'fulfilled') opened.value.close();
        const error: unknown =
          opened.status === 'rejected' ? opened.reason : (found as PromiseRejectedResult).reason;
        dispatch({
          type: 'refused',
          message: error instanceof MicrophoneUnavailable ? error.message : messageOf(error),
        });
        return;
      }
      const microphone = opened.value;
      const owner = found.value;
      const startedAt = Date.now();
      const { recorder } = microphone;
      const kept: KeptRecording = {
        id: crypto.randomUUID(),
        accountId: owner,
        noteId: crypto.randomUUID(),
        title: recordingTitle(new Date(startedAt)),
        mimeType: microphone.mimeType,
        startedAt,
        elapsedMs: 0,
      };
      const current: Take = {
        kept,
        microphone,
        contentType: microphone.contentType,
        chunks: [],
        writes: keepRecording(kept).then(
          () => setKeeping(true),
          () => setKeeping(false),
        ),
        release: holdLock(kept.id),
        discarded: false,
      };
      take.current = current;
      setDestination(to);
      recorder.addEventListener('dataavailable', (event) => {
        if (event.data.size === 0 || current.discarded) return;
        const seq = current.chunks.push(event.data);
        current.kept = { ...current.kept, elapsedMs: elapsedMs(stateRef.current, Date.now()) };
        const snapshot = current.kept;
        current.writes = current.writes.then(() =>
          keepChunk(snapshot, seq, event.data).catch(() => setKeeping(false)),
        );
      });
      // A microphone that goes away (unplugged) ends the recording: what was recorded is saved.
      microphone.onEnded(() => void stop());
      recorder.start(CHUNK_MS);
      dispatch({ type: 'started', at: Date.now() });
    },
    [account, stop],
  );

  const pause = useCallback(() => {
    const recorder = take.current?.microphone?.recorder;
    if (stateRef.current.kind !== 'recording' || !recorder) return;
    recorder.pause();
    dispatch({ type: 'pause', at: Date.now() });
  }, []);

  const resume = useCallback(() => {
    const recorder = take.current?.microphone?.recorder;
    if (stateRef.current.kind !== 'paused' || !recorder) return;
    recorder.resume();
    dispatch({ type: 'resume', at: Date.now() });
  }, []);

  const discard = useCallback(async () => {
    const current = take.current;
    if (!current) return;
    take.current = null;
    current.discarded = true;
    dispatch({ type: 'discard' });
    const recorder = current.microphone?.recorder;
    if (recorder && recorder.state !== 'inactive') {
      // Its last piece (dataavailable, ignored now) comes before stop: nothing is kept after this.
      await new Promise<void>((resolve) => {
        recorder.addEventListener('stop', () => resolve(), { once: true });
        recorder.stop();
      });
    }
    closeMicrophone(current);
    await current.writes;
    await forgetRecording(current.kept.id).catch(() => undefined);
    current.release();
    setKeptVersion((version) => version + 1);
  }, []);

  const retry = useCallback(async () => {
    const current = take.current;
    if (!current || stateRef.current.kind !== 'failed') return;
    dispatch({ type: 'save-kept', elapsedMs: current.kept.elapsedMs });
    const audio = current.chunks.length
      ? new Blob(current.chunks, { type: current.kept.mimeType })
      : await keptAudio(current.kept);
    await upload(current, audio, destinationRef.current ?? { collection: null, speakersExpected: undefined });
  }, [upload]);

  const saveKept = useCallback(
    async (kept: KeptRecording, to: Destination) => {
      if (stateRef.current.kind !== 'idle') return;
      dispatch({ type: 'save-kept', elapsedMs: kept.elapsedMs });
      const current: Take = {
        kept,
        microphone: null,
        contentType: serviceContentType(kept.mimeType) ?? 'audio/webm',
        chunks: [],
        writes: Promise.resolve(),
        release: holdLock(kept.id),
        discarded: false,
      };
      take.current = current;
      setDestination(to);
      try {
        current.chunks = [await keptAudio(kept)];
      } catch (error) {
        dispatch({ type: 'save-failed', message: messageOf(error) });
        return;
      }
      await upload(current, current.chunks[0] ?? new Blob(), to);
    },
    [upload],
  );

  const unfinished = useCallback(async () => {
    if (typeof indexedDB === 'undefined') return [];
    const [owner, locked] = await Promise.all([account(), lockedRecordings()]);
    const kept = await keptRecordings(owner);
    return kept.filter((recording) => !locked.has(recording.id) && recording.id !== take.current?.kept.id);
  }, [account]);

  const discardKept = useCallback(async (kept: KeptRecording) => {
    await forgetRecording(kept.id);
    setKeptVersion((version) => version + 1);
  }, []);

  // Leaving the signed-in app (sign-out) lets the microphone go; what was recorded stays kept.
  useEffect(
    () => () => {
      const current = take.current;
      if (!current) return;
      current.microphone?.recorder.stop();
      if (current.microphone) closeMicrophone(current);
    },
    [],
  );

  const session = useMemo<RecorderSession>(
    () => ({
      state,
      destination,
      keeping,
      keptVersion,
      start,
      pause,
      resume,
      stop,
      discard,
      retry,
      saveKept,
      discardKept,
      unfinished,
      dismiss: () => dispatch({ type: 'dismiss' }),
      level: () => take.current?.microphone?.level() ?? 0,
    }),
    [
      state,
      destination,
      keeping,
      keptVersion,
      start,
      pause,
      resume,
      stop,
      discard,
      retry,
      saveKept,
      discardKept,
      unfinished,
    ],
  );
  return <Session.Provider value={session}>{children}</Session.Provider>;
}
