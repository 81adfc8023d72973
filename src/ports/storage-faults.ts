/**
 * Storage that cannot take a write: no space left (`full`), or a data directory the service may not
 * write (`unwritable`). Nothing was written, and the same write succeeds once the operator has freed
 * space or fixed the permissions. The local stand-ins answer these as `InsufficientStorage` /
 * `ServiceUnavailable` (src/local/database-faults.ts, the object store's front); file-system errors
 * (a worker's scratch files) carry their errno code. The API answers them 507 / 503
 * (src/http/error-mapper.ts); the queue workers wait for space (src/workers/storage-wait.ts).
 */
export type StorageFault = 'full' | 'unwritable';

export function storageFaultOf(error: unknown): StorageFault | null {
  if (!(error instanceof Error)) return null;
  const { code } = error as { code?: string };
  if (error.name === 'InsufficientStorage' || code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  if (error.name === 'ServiceUnavailable' || code === 'EROFS' || code === 'EACCES') return 'unwritable';
  return null;
}
