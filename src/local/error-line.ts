/** An error as one log line, whatever its message holds: the local runtime's logs are read line by line. */
export function errorLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/\s+/g, ' ');
}
