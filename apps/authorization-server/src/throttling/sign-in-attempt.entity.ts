import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The failed sign-in attempts of one throttled key (see `SignInThrottle`). */
@Entity({ name: 'sign_in_attempts' })
@Index('ix_sign_in_attempts_last_failure_at', ['lastFailureAt'])
export class SignInAttemptEntity {
  /** `address:<client address>|<username>` or `account:<username>`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_sign_in_attempts' })
  key!: string;

  /** Attempts counted since the last success or quiet period, the one being checked included. */
  @Column({ type: 'integer' })
  failures!: number;

  @Column({ type: 'timestamptz' })
  lastFailureAt!: Date;

  /** No attempt of this key is checked before this instant. */
  @Column({ type: 'timestamptz' })
  blockedUntil!: Date;
}
