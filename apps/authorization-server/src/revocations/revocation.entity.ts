import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A revoked tenant or subject: its tokens issued until `revokedAt` are refused (see `AccessRevocations`). */
@Entity({ name: 'revocations' })
@Index('ix_revocations_revoked_at', ['revokedAt'])
export class RevocationEntity {
  /** `tenant` or `subject`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_revocations' })
  kind!: string;

  /** The tenant's id, or the user's or client's id. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_revocations' })
  id!: string;

  @Column({ type: 'timestamptz' })
  revokedAt!: Date;

  /** A tenant's slug when it was revoked. */
  @Column({ type: 'text', nullable: true })
  tenant!: string | null;
}
