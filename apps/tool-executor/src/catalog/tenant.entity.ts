import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A tenant of the platform, known here by its slug. */
@Entity({ name: 'tenants' })
@Index('uq_tenants_slug', ['slug'], { unique: true })
export class TenantEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  slug!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
