import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';

/** A process started by a test, remembered by pid so it can be stopped even when the test fails. */
export interface TrackedProcess {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything the process wrote (stdout and stderr interleaved), bounded, for failure messages. */
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<number | NodeJS.Signals>;
}

const OUTPUT_LIMIT = 64 * 1024;

/**
 * Starts processes in their own process group and stops exactly those, by pid (never by name):
 * SIGTERM to the group, then SIGKILL after a grace period. `stopAll()` is safe to call twice, and a
 * process-exit hook kills whatever is still registered if the runner dies first.
 */
export class ProcessTracker {
  private readonly processes = new Map<number, TrackedProcess>();
  private readonly onExit = (): void => this.killAllNow();

  constructor() {
    process.once('exit', this.onExit);
  }

  /** Spawns `command args` detached (its own group) with piped output. */
  start(name: string, command: string, args: readonly string[], options: SpawnOptions = {}): TrackedProcess {
    const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
    let buffer = '';
    const append = (chunk: Buffer): void => {
      buffer += chunk.toString('utf8');
      if (buffer.length > OUTPUT_LIMIT) buffer = buffer.slice(buffer.length - OUTPUT_LIMIT);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const exited = new Promise<number | NodeJS.Signals>((resolve) => {
      child.once('exit', (code, signal) => resolve(code ?? signal ?? 0));
    });
    const tracked: TrackedProcess = { name, pid: child.pid, child, exited, output: () => buffer };
    this.processes.set(child.pid, tracked);
    void exited.then(() => this.processes.delete(tracked.pid));
    return tracked;
  }

  /** The processes still running. */
  running(): TrackedProcess[] {
    return [...this.processes.values()];
  }

  /** Stops one process group: SIGTERM, then SIGKILL after `graceMs`. */
  async stop(tracked: TrackedProcess, graceMs = 5_000): Promise<void> {
    if (!this.processes.has(tracked.pid)) return;
    signalGroup(tracked.pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(tracked.pid, 'SIGKILL'), graceMs);
    await tracked.exited;
    clearTimeout(timer);
    // Children of the process (if any) die with the group.
    signalGroup(tracked.pid, 'SIGKILL');
  }

  /** Stops every process this tracker started. */
  async stopAll(graceMs = 5_000): Promise<void> {
    await Promise.all(this.running().map((tracked) => this.stop(tracked, graceMs)));
    process.removeListener('exit', this.onExit);
  }

  private killAllNow(): void {
    for (const tracked of this.processes.values()) signalGroup(tracked.pid, 'SIGKILL');
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
