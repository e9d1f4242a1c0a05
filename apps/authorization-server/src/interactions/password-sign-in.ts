import { Injectable } from '@nestjs/common';
import { Passport } from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import type { UserAccount } from '../identity/identity.types';
import { UsersService } from '../identity/users/users.service';

/**
 * Username and password sign-in through passport's local strategy (issue 3: "passport for signing
 * users in"), on a private `Passport` instance without sessions: the browser's session is
 * oidc-provider's. The strategy's verify step is `UsersService.verifyPassword` (argon2id, constant
 * work for unknown users). Other strategies (an upstream identity provider) can join it later.
 */
@Injectable()
export class PasswordSignIn {
  private readonly passport = new Passport();

  constructor(users: UsersService) {
    this.passport.use(
      'local',
      new LocalStrategy({ session: false }, (username, password, done) => {
        users.verifyPassword(username, password).then(
          (user) => done(null, user ?? false),
          (error: unknown) => done(error),
        );
      }),
    );
  }

  /** The account when the credentials are right; `undefined` otherwise (also for empty fields). */
  authenticate(username: string, password: string): Promise<UserAccount | undefined> {
    return new Promise((resolve, reject) => {
      const request = { body: { username, password } };
      const middleware = this.passport.authenticate('local', { session: false }, (error: unknown, user: UserAccount | false) => {
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve(user || undefined);
      }) as (request: unknown, response: unknown, next: (error?: unknown) => void) => void;
      middleware(request, {}, (error?: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
    });
  }
}
