/**
 * The output of the services a test file started, kept (not printed) so that a failing test can show
 * it (test/support/service-logs-on-failure.ts). Kept on globalThis: the setup file and the test file
 * may load this module apart.
 */
export interface ServiceLog {
  label: string;
  output: () => string;
}

const registry = globalThis as { notesServiceLogs?: Set<ServiceLog> };

/** Registers a started service's output; the returned function unregisters it. */
export function keepServiceLog(log: ServiceLog): () => void {
  registry.notesServiceLogs ??= new Set();
  registry.notesServiceLogs.add(log);
  return () => registry.notesServiceLogs?.delete(log);
}

export function keptServiceLogs(): ServiceLog[] {
  return [...(registry.notesServiceLogs ?? [])];
}
