import { Injectable } from '@nestjs/common';

/** Time as the scheduler sees it (creation, expiry); injected so tests can move it instead of waiting. */
export abstract class Clock {
  /** Epoch milliseconds. */
  abstract now(): number;
}

@Injectable()
export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
