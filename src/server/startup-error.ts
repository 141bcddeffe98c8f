/**
 * Why the server could not start, in one sentence for the person starting it (a database that is
 * unreachable, a setting that contradicts another): `runstream serve` prints it and exits 1.
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
