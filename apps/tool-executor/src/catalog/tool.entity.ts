import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import type { BuiltinToolConfig, HttpToolConfig, JsonObject, ToolKind, UpstreamToolConfig } from './catalog.types';
import { TenantEntity } from './tenant.entity';

/** One tool of a tenant's catalog: its MCP definition and how it runs. */
@Entity({ name: 'tools' })
@Index('uq_tools_tenant_name', ['tenantId', 'name'], { unique: true })
export class ToolEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_tools_tenant' })
  tenant?: TenantEntity;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'jsonb' })
  inputSchema!: JsonObject;

  @Column({ type: 'jsonb', nullable: true })
  outputSchema!: JsonObject | null;

  @Column({ type: 'jsonb', nullable: true })
  annotations!: JsonObject | null;

  @Column({ type: 'text' })
  kind!: ToolKind;

  @Column({ type: 'jsonb' })
  config!: BuiltinToolConfig | HttpToolConfig | UpstreamToolConfig;

  @Column({ type: 'integer' })
  timeoutMs!: number;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** A JSON array of scope names (jsonb rather than text[]: one column type for PostgreSQL and PGlite alike). */
  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  requiredScopes!: string[];

  /** `forbidden`, `optional` or `required` (S-197); a check constraint keeps out anything else. */
  @Column({ type: 'text', default: 'forbidden' })
  taskSupport!: toolExecutor.TaskSupport;

  /** The upstream source a tool of kind `upstream` belongs to (it goes with its source); null for every other kind. */
  @Column({ type: 'uuid', nullable: true })
  sourceId!: string | null;

  /**
   * Why an upstream tool is neither listed nor callable although approved once: its definition changed
   * upstream (until an administrator approves the change), or the upstream no longer lists it.
   */
  @Column({ type: 'text', nullable: true })
  held!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
