import { Module } from '@nestjs/common';
import { Clock, SystemClock } from '@mcp-platform/shared-clock';
import { RegistrationThrottle } from './registration.throttle';
import { SignInThrottle } from './sign-in.throttle';
import { SignInAttemptsRepository } from './sign-in-attempts.repository';

/** Brakes on guessing and flooding, shared by every replica through one table: sign-ins and dynamic registrations. */
@Module({
  providers: [SignInAttemptsRepository, SignInThrottle, RegistrationThrottle, { provide: Clock, useClass: SystemClock }],
  exports: [SignInThrottle, RegistrationThrottle],
})
export class ThrottlingModule {}
