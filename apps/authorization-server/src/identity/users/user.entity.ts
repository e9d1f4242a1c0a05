import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';

/** Someone who signs in: a tenant's user, or a platform administrator (`tenantId` null allowed only then). */
@Entity({ name: 'users' })
@Index('uq_users_username', ['username'], { unique: true })
@Index('ix_users_tenant', ['tenantId'])
export class UserEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_users' })
  id!: string;

  /** Stored lowercased, so uniqueness is case-insensitive. */
  @Column({ type: 'text' })
  username!: string;

  /** An argon2id PHC string. */
  @Column({ type: 'text' })
  passwordHash!: string;

  @Column({ type: 'uuid', nullable: true })
  tenantId!: string | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_users_tenant' })
  tenant?: TenantEntity | null;

  @Column({ type: 'boolean', default: false })
  platformAdmin!: boolean;

  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
