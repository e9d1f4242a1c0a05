import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One stored artifact of oidc-provider (a session, an interaction, a grant, an authorization code, a
 * refresh token, an access token's record, ...), keyed by its model name and id. Rows outlive their
 * `expires_at` only until the periodic clean-up; reads ignore expired rows.
 */
@Entity({ name: 'oidc_records' })
@Index('ix_oidc_records_grant_id', ['grantId'])
@Index('ix_oidc_records_uid', ['uid'])
@Index('ix_oidc_records_expires_at', ['expiresAt'])
export class OidcRecordEntity {
  /** oidc-provider's model name: `Session`, `Grant`, `AuthorizationCode`, `RefreshToken`, ... */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_oidc_records' })
  model!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_oidc_records' })
  id!: string;

  /** The model's payload as oidc-provider hands it over (never holds a token value, only ids). */
  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  /** The grant a token belongs to: revoking a grant deletes every row with its id. */
  @Column({ type: 'text', nullable: true })
  grantId!: string | null;

  /** A session's or interaction's uid (looked up by the interaction cookie). */
  @Column({ type: 'text', nullable: true })
  uid!: string | null;

  /** A device flow's user code (the feature is off; the column keeps the adapter contract whole). */
  @Column({ type: 'text', nullable: true })
  userCode!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  /** Set once when a code or refresh token is used; a second use of a consumed one revokes its grant. */
  @Column({ type: 'timestamptz', nullable: true })
  consumedAt!: Date | null;
}
