import { PGliteDriver } from 'typeorm-pglite';
import { ExclusiveLock } from './exclusive-lock';

type PGlitePool = InstanceType<PGliteDriver['driver']['Pool']>;
type ConnectCallback = Parameters<PGlitePool['connect']>[0];

/** What TypeORM's postgres driver needs from a `pg`-like module: a `Pool` class. */
export interface PostgresDriverModule {
  Pool: new () => PGlitePool;
}

interface SharedInstance {
  dataDir: string | undefined;
  /** Told once the instance has closed (the first caller's; every app of a process passes the same). */
  onClosed: (() => void) | undefined;
  /** DataSources whose pool is open on the instance; the instance closes when the last one ends. */
  openPools: number;
  driver: PostgresDriverModule;
}

let shared: SharedInstance | undefined;

/**
 * The one PGlite database of this process, as a TypeORM driver module.
 *
 * typeorm-pglite keeps a single, lazily created PGlite instance per process, and every
 * `new PGliteDriver(options)` overwrites its options; its pool's `end()` closes that instance for
 * everyone. The embedded mode runs several apps (one DataSource and one schema each) on that one
 * database, so this wrapper:
 * - creates the driver once and refuses a second, different `dataDir` while the instance is open;
 * - counts the pools open on it and closes the instance only when the last DataSource is destroyed,
 *   then calls `onClosed`;
 * - hands out the single PGlite connection to one TypeORM query runner at a time (PGlite has one
 *   session: without this, a transaction of one app would swallow the statements of another).
 *   Consequence: code holding a query runner (a transaction) must not ask for a second one.
 */
export function sharedPGliteDriver(dataDir?: string, onClosed?: () => void): PostgresDriverModule {
  if (shared) {
    if (shared.dataDir !== dataDir) {
      throw new Error(
        `PGlite is already open on ${shared.dataDir ?? 'memory'} in this process; every app must use the same dataDir (got ${dataDir ?? 'memory'})`,
      );
    }
    return shared.driver;
  }
  const Base = new PGliteDriver(dataDir ? { dataDir } : {}).driver.Pool;
  const lock = new ExclusiveLock();
  const instance: SharedInstance = { dataDir, onClosed, openPools: 0, driver: undefined as unknown as PostgresDriverModule };

  class SharedPGlitePool extends Base {
    constructor() {
      super();
      instance.openPools += 1;
    }

    override async connect(callback: ConnectCallback): Promise<void> {
      const release = await lock.acquire();
      await super.connect((error, client) => {
        if (error) {
          release();
          callback(error, null, () => undefined);
          return;
        }
        callback(null, client, release);
      });
    }

    override end(errorCallback: (error: unknown) => void): void {
      instance.openPools -= 1;
      if (instance.openPools > 0) {
        errorCallback(null);
        return;
      }
      if (shared === instance) shared = undefined;
      super.end((error: unknown) => {
        instance.onClosed?.();
        errorCallback(error);
      });
    }
  }

  instance.driver = { Pool: SharedPGlitePool };
  shared = instance;
  return instance.driver;
}
