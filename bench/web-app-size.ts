/**
 * `npm run bench -- web-app`: what a browser downloads for the web app (the page, its one script and
 * its one stylesheet), raw, gzip and brotli, next to Preact alone bundled the same way (the baseline:
 * what the UI library costs before any of the app), and the build time.
 */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildWebApp } from '../web/build.ts';

export interface ShippedFile {
  file: string;
  bytes: number;
  gzip: number;
  brotli: number;
}

export interface WebAppSize {
  files: ShippedFile[];
  total: ShippedFile;
  preact_alone: ShippedFile;
  build_ms: number;
}

function sizes(file: string, body: Buffer | Uint8Array): ShippedFile {
  return {
    file,
    bytes: body.length,
    gzip: gzipSync(body, { level: 9 }).length,
    brotli: brotliCompressSync(body).length,
  };
}

export async function webAppSize(): Promise<WebAppSize> {
  const started = performance.now();
  const built = buildWebApp();
  const build_ms = Math.round(performance.now() - started);
  const files = built.map((file) => sizes(file.path, file.body));
  const total = files.reduce(
    (sum, file) => ({
      file: 'total',
      bytes: sum.bytes + file.bytes,
      gzip: sum.gzip + file.gzip,
      brotli: sum.brotli + file.brotli,
    }),
    { file: 'total', bytes: 0, gzip: 0, brotli: 0 },
  );
  const preact = await build({
    stdin: {
      contents:
        "import { render, h } from 'preact'; import { useState } from 'preact/hooks'; render(h(() => useState(0)[0], null), document.body);",
      resolveDir: process.cwd(),
    },
    bundle: true,
    minify: true,
    format: 'esm',
    write: false,
  });
  return {
    files,
    total,
    preact_alone: sizes('preact + hooks', preact.outputFiles[0]?.contents ?? new Uint8Array()),
    build_ms,
  };
}

export function webAppSizeTable(result: WebAppSize): string {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const rows = [...result.files, result.total, result.preact_alone].map(
    (file) => `| ${file.file} | ${kib(file.bytes)} | ${kib(file.gzip)} | ${kib(file.brotli)} |`,
  );
  return [
    '| file | minified | gzip | brotli |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    `Built in ${result.build_ms} ms (esbuild, in memory).`,
  ].join('\n');
}
