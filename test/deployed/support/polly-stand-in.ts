import { execFile } from 'node:child_process';
import { createServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';

/** One SynthesizeSpeech request as received: its JSON body (Text, VoiceId, Engine, OutputFormat...). */
export type SpeechRequest = Record<string, unknown>;

export interface PollyStandIn {
  endpoint: string;
  requests: SpeechRequest[];
  close(): Promise<void>;
}

/**
 * Amazon Polly on loopback over cleartext HTTP/2, as the SDK's client speaks it (restJson1:
 * `POST /v1/speech`, the audio as the response body with `x-amzn-RequestCharacters`). Each request
 * gets real MP3 audio at the sample rate it asked for (a short tone made by ffmpeg, since the podcast
 * joins the streams frame by frame); anything but MP3 is refused as AWS does for an unknown format.
 */
export async function startPollyStandIn(): Promise<PollyStandIn> {
  const requests: SpeechRequest[] = [];
  const audioByRate = new Map<string, Promise<Buffer>>();
  const server = createServer((request: Http2ServerRequest, response: Http2ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as SpeechRequest;
      requests.push(body);
      if (request.url !== '/v1/speech' || body.OutputFormat !== 'mp3' || typeof body.Text !== 'string') {
        response.writeHead(400, {
          'content-type': 'application/json',
          'x-amzn-errortype': 'ValidationException',
        });
        response.end(
          JSON.stringify({ message: `Not answered here: ${request.url} ${String(body.OutputFormat)}` }),
        );
        return;
      }
      const rate = String(body.SampleRate ?? '24000');
      if (!audioByRate.has(rate)) audioByRate.set(rate, mp3Tone(rate));
      (audioByRate.get(rate) as Promise<Buffer>).then(
        (audio) => {
          response.writeHead(200, {
            'content-type': 'audio/mpeg',
            'x-amzn-requestcharacters': String((body.Text as string).length),
            'x-amzn-requestid': '0b9a3c2e-0000-4000-8000-000000000002',
          });
          response.end(audio);
        },
        (error: unknown) => {
          response.writeHead(500, {
            'content-type': 'application/json',
            'x-amzn-errortype': 'ServiceFailureException',
          });
          response.end(JSON.stringify({ message: String(error) }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Half a second of a 440 Hz tone as mono MP3 at `sampleRate`, as Polly returns speech. */
async function mp3Tone(sampleRate: string): Promise<Buffer> {
  const { stdout } = await promisify(execFile)(
    'ffmpeg',
    // Plain MPEG frames, as Polly sends them: no ID3 tag, no Xing header.
    [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=0.5',
      '-ar',
      sampleRate,
      '-ac',
      '1',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '48k',
      '-id3v2_version',
      '0',
      '-write_xing',
      '0',
      '-f',
      'mp3',
      'pipe:1',
    ],
    { encoding: 'buffer', maxBuffer: 4 * 1024 * 1024 },
  );
  return stdout;
}
