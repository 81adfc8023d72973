/**
 * A handler's result with what legitimately differs between two runs put aside: the note it was
 * about, times, and request signatures. Everything else must be equal between bundle and source.
 */
export function comparable(result: unknown, noteId: string): unknown {
  const text = JSON.stringify(result)
    .replaceAll(noteId, '<note>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')
    .replace(/\d{8}T\d{6}Z/g, '<time>')
    .replace(/(X-Amz-(Date|Signature|Credential|Expires))=[^&"\\]*/g, '$1=<signed>')
    .replace(/(\\?"\w+_at\\?":)\d+/g, '$1<time>');
  return JSON.parse(text);
}
