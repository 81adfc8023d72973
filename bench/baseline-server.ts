/** The baseline: a trivial Node HTTP server answering a small JSON body. Prints its port. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = JSON.stringify({
  note_id: '00000000-0000-4000-8000-000000000000',
  title: 'Baseline',
  state: 'active',
  transcription_status: 'none',
});
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
