import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * Secrets the replicas of the authorization server must share and that are generated once: the
 * cookie signing keys and the CSRF key of the sign-in and consent forms.
 */
@Entity({ name: 'oauth_secrets' })
export class OAuthSecretEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_oauth_secrets' })
  name!: string;

  /** Base64url-encoded random bytes. */
  @Column({ type: 'text' })
  value!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
