/** A first-come, first-served async lock: `acquire()` resolves with the function that releases it. */
export class ExclusiveLock {
  private tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.tail;
    this.tail = previous.then(() => released);
    return previous.then(() => {
      let done = false;
      return () => {
        if (done) return;
        done = true;
        release();
      };
    });
  }
}
