import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One key that signs the server's JWTs. The current signer is the newest active one that is
 * not retired; retired keys stay (published, not used) until nothing they signed can still be valid.
 */
@Entity({ name: 'signing_keys' })
@Index('ix_signing_keys_activated_at', ['activatedAt'])
export class SigningKeyEntity {
  /** The RFC 7638 thumbprint of the public key. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_signing_keys' })
  kid!: string;

  @Column({ type: 'text' })
  alg!: string;

  /** The private JWK, or its AES-256-GCM envelope when a key encryption secret is configured. */
  @Column({ type: 'jsonb' })
  privateJwk!: Record<string, unknown>;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  activatedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  retiredAt!: Date | null;
}
