import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { TenantEntity } from '../catalog/tenant.entity';
import type { SealedSecret } from '../credentials/secret-box';
import type { StoredConnection } from './upstream.types';

/** An upstream MCP server a tenant brought (issue 15): where it is, how to authenticate, how its items are pinned. */
@Entity({ name: 'upstream_sources' })
@Index('uq_upstream_sources_tenant_name', ['tenantId', 'name'], { unique: true })
export class UpstreamSourceEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_upstream_sources_tenant' })
  tenant?: TenantEntity;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  /** Transport, URL or stdio entry, and the auth's shape; every secret in it is a reference into `secrets`. */
  @Column({ type: 'jsonb' })
  connection!: StoredConnection;

  /** The source's secrets by reference, each sealed (AES-256-GCM under the operator's key). */
  @Column({ type: 'jsonb', default: () => `'{}'::jsonb` })
  secrets!: Record<string, SealedSecret>;

  /** What its tools are called in the catalog: `<prefix>__<name>`; null: their own names. */
  @Column({ type: 'text', nullable: true })
  prefix!: string | null;

  @Column({ type: 'text' })
  policy!: toolExecutor.ApprovalPolicy;

  @Column({ type: 'integer', nullable: true })
  timeoutMs!: number | null;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** The virtual servers that get the source's prompts, resources and templates; empty: all of the tenant's. */
  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  servers!: string[];

  /** The last health a replica saw (`toolExecutor.UpstreamHealthSchema`). */
  @Column({ type: 'jsonb' })
  health!: toolExecutor.UpstreamHealth;

  /** When the catalog is due to be read again in the background; null: not yet read (a write reads it). */
  @Column({ type: 'timestamptz', nullable: true })
  nextSyncAt!: Date | null;

  /** Background reads in a row that could not read the catalog (the next one waits longer). */
  @Column({ type: 'integer', default: 0 })
  syncFailures!: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
