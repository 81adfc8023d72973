import { chooseMimeType, serviceContentType } from './format.ts';

/** Why recording could not start, in words a person can act on. */
export class MicrophoneUnavailable extends Error {}

/** An open microphone: a MediaRecorder on it, and its input level for the meter. */
export interface Microphone {
  recorder: MediaRecorder;
  /** What the recorder writes, e.g. `audio/webm;codecs=opus`. */
  mimeType: string;
  /** What the upload declares, e.g. `audio/webm`. */
  contentType: string;
  /** Loudness now, 0 (silence) to 1 (full scale): the signal's RMS. */
  level(): number;
  /** Called once if the microphone goes away by itself (unplugged, or taken by the system). */
  onEnded(listener: () => void): void;
  /** Lets the microphone go (the browser's recording indicator goes off). */
  close(): void;
}

/** Speech needs little: 64 kbit/s Opus is about 29 MB an hour. */
const BITS_PER_SECOND = 64_000;

export async function openMicrophone(): Promise<Microphone> {
  if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') {
    throw new MicrophoneUnavailable(
      'This browser cannot record here: recording needs a current browser and a secure (https) address.',
    );
  }
  const mimeType = chooseMimeType((type) => MediaRecorder.isTypeSupported(type));
  if (!mimeType) {
    throw new MicrophoneUnavailable(
      'This browser records in no format the service reads (WebM, Ogg or MP4 audio). Record with another app and upload the file.',
    );
  }
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (error) {
    throw new MicrophoneUnavailable(refusal(error));
  }
  const recorder = new MediaRecorder(stream, { mimeType, audioBitsPerSecond: BITS_PER_SECOND });
  // Some browsers name the type only once recording starts: the one asked for stands in until then.
  const written = recorder.mimeType || mimeType;
  const contentType = serviceContentType(written) ?? serviceContentType(mimeType);
  if (!contentType) {
    for (const track of stream.getTracks()) track.stop();
    throw new MicrophoneUnavailable(`This browser records ${written}, which the service does not read.`);
  }
  const context = new AudioContext();
  const analyser = context.createAnalyser();
  analyser.fftSize = 1024;
  context.createMediaStreamSource(stream).connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  return {
    recorder,
    mimeType: written,
    contentType,
    level() {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const sample of samples) sum += sample * sample;
      return Math.min(1, Math.sqrt(sum / samples.length));
    },
    onEnded(listener) {
      for (const track of stream.getAudioTracks()) track.addEventListener('ended', listener, { once: true });
    },
    close() {
      for (const track of stream.getTracks()) track.stop();
      void context.close();
    },
  };
}

/** getUserMedia's DOMException names, said plainly. */
function refusal(error: unknown): string {
  const name = error instanceof DOMException ? error.name : '';
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return 'The microphone is blocked for this site. Allow it in the browser’s site settings (the icon beside the address), then press Record again.';
    case 'NotFoundError':
    case 'OverconstrainedError':
      return 'No microphone was found. Connect one (or check that the system sees it), then press Record again.';
    case 'NotReadableError':
    case 'AbortError':
      return 'The microphone could not be started: another app may be using it. Close that app, then press Record again.';
    default:
      return 'The microphone could not be opened. Check that one is connected and allowed for this site, then press Record again.';
  }
}
