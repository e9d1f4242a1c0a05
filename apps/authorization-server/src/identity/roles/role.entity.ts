import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';

/** A named set of scopes within one tenant. */
@Entity({ name: 'roles' })
@Index('uq_roles_tenant_name', ['tenantId', 'name'], { unique: true })
export class RoleEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_roles' })
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_roles_tenant' })
  tenant?: TenantEntity;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** A JSON array of scope names (jsonb rather than text[]: one column type for PostgreSQL and PGlite alike). */
  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  scopes!: string[];

  /** Descriptions of scopes the role allows, by scope (a JSON object), for the consent page. */
  @Column({ type: 'jsonb', default: () => `'{}'::jsonb` })
  scopeDescriptions!: Record<string, string>;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
