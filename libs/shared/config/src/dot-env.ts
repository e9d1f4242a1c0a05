import { StartupError } from './load-env';

/**
 * Reads `.env` of the working directory into the process environment, as a new user expects from a
 * `.env.example`: keys already in the environment win over the file (Node's own parser: `KEY=value`
 * lines, `#` comments, quotes). A missing file is no error. Call it first in `main.ts`, before the
 * environment is validated; answers whether a file was read.
 */
export function loadDotEnvFile(path = '.env'): boolean {
  try {
    process.loadEnvFile(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new StartupError(`cannot read ${path}: ${(error as Error).message}`);
  }
}
