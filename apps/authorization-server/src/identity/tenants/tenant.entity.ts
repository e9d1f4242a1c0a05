import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A tenant: its slug is the first segment of its MCP URLs. */
@Entity({ name: 'tenants' })
@Index('uq_tenants_slug', ['slug'], { unique: true })
export class TenantEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_tenants' })
  id!: string;

  @Column({ type: 'text' })
  slug!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
