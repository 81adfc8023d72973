/**
 * A start-up failure the person starting the service can act on (a damaged file in the data
 * directory, a database another process holds): its message names the file and what to do, and it is
 * printed without a stack trace. Its name survives a thread boundary, where the class does not.
 */
export class StartUpProblem extends Error {
  override name = 'StartUpProblem';
}

export function isStartUpProblem(error: unknown): error is Error {
  return error instanceof Error && error.name === 'StartUpProblem';
}

/** `<path>: <what is wrong>. <what to do>` */
export function damagedFile(path: string, problem: string, recovery: string): StartUpProblem {
  return new StartUpProblem(`${path}: ${problem}. ${recovery}`);
}
