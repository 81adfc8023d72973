import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { Readable } from 'node:stream';

export interface UploadName {
  filename: string;
  contentType: string;
}

/**
 * Names the upload after what the bytes are. The worker stores the recording as `…/audio` without an
 * extension, and OpenAI decides the format from the file name's extension ("Invalid file format.
 * Supported formats: [flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm]"), so a bare `audio` would be
 * refused whatever it holds. The magic numbers cover the formats the upload API accepts.
 */
export async function uploadName(audioPath: string): Promise<UploadName> {
  const head = await readHead(audioPath, 12);
  const ascii = (from: number, to: number) => head.subarray(from, to).toString('latin1');
  const [b0 = 0, b1 = 0] = head;
  let sniffed: [string, string] | undefined;
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') sniffed = ['wav', 'audio/wav'];
  else if (ascii(0, 3) === 'ID3') sniffed = ['mp3', 'audio/mpeg'];
  else if (ascii(0, 4) === 'fLaC') sniffed = ['flac', 'audio/flac'];
  else if (ascii(0, 4) === 'OggS') sniffed = ['ogg', 'audio/ogg'];
  else if (head.readUInt32BE(0) === 0x1a45dfa3) sniffed = ['webm', 'audio/webm'];
  else if (ascii(4, 8) === 'ftyp') sniffed = ['m4a', 'audio/mp4'];
  else if (b0 === 0xff && (b1 & 0xe0) === 0xe0) {
    // An MPEG audio frame sync; layer bits 00 mean an ADTS (raw AAC) frame rather than MP3.
    sniffed = (b1 & 0x06) === 0 ? ['aac', 'audio/aac'] : ['mp3', 'audio/mpeg'];
  }
  if (sniffed) return { filename: `audio.${sniffed[0]}`, contentType: sniffed[1] };
  // Unknown bytes: keep the path's own name (its extension, if any, is the best remaining hint) and let
  // the server decide; a refusal then comes back as a 4xx and the audio counts as unreadable.
  const own = basename(audioPath).replace(/[^\w.-]/g, '_');
  return { filename: extname(own) ? own : 'audio', contentType: 'application/octet-stream' };
}

async function readHead(path: string, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return bytesRead < length
      ? Buffer.concat([buffer.subarray(0, bytesRead), Buffer.alloc(length - bytesRead)])
      : buffer;
  } finally {
    await handle.close();
  }
}

/** Reading the audio file failed mid-upload: a local problem, not the server's, so not retried here. */
export class AudioReadError extends Error {
  override readonly name = 'AudioReadError';
}

export interface MultipartBody {
  /** `multipart/form-data; boundary=…` */
  contentType: string;
  /** Exact size, so the request carries `Content-Length`: not every server accepts a chunked upload. */
  contentLength: number;
  /** A fresh stream of the whole body (one per attempt); the file is read as it is sent, never held. */
  open(onFileBytes: (sent: number) => void): Readable;
}

/**
 * `multipart/form-data` (RFC 7578) with text fields first and the file last, streamed from disk. Built
 * by hand rather than with `FormData` because the request goes through `node:http` (see the adapter),
 * which needs a Node stream and the exact length up front.
 */
export function multipartBody(
  fields: ReadonlyArray<readonly [string, string]>,
  file: { path: string; size: number; filename: string; contentType: string },
): MultipartBody {
  const boundary = `----notes-${randomBytes(16).toString('hex')}`;
  const textParts = fields.map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const head = Buffer.from(
    `${textParts.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: head.length + file.size + tail.length,
    open(onFileBytes) {
      async function* chunks() {
        yield head;
        let sent = 0;
        try {
          for await (const chunk of createReadStream(file.path)) {
            sent += (chunk as Buffer).length;
            onFileBytes(sent);
            yield chunk as Buffer;
          }
        } catch (error) {
          throw new AudioReadError(`Cannot read the audio file: ${(error as Error).message}`, {
            cause: error,
          });
        }
        // A file that changed size since it was measured would break Content-Length framing.
        if (sent !== file.size)
          throw new AudioReadError('The audio file changed while it was being uploaded');
        yield tail;
      }
      return Readable.from(chunks(), { objectMode: false });
    },
  };
}
