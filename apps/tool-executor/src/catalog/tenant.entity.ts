import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A tenant of the platform, known here by its slug. */
@Entity({ name: 'tenants' })
@Index('uq_tenants_slug', ['slug'], { unique: true })
export class TenantEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  slug!: string;

  /** A disabled tenant's virtual servers refuse every caller (the authorization server sets it). */
  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
