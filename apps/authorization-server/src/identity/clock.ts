import { Injectable } from '@nestjs/common';

/** The current time, injected so tests can move it (key rotation ages keys by days). */
export abstract class Clock {
  abstract now(): Date;
}

@Injectable()
export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
