import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { ToolEntity } from './tool.entity';

/**
 * The last outbound failure of an HTTP tool, one row per tool: operational state beside the catalog,
 * so recording a failure never touches the tool's row (nor its version, the validator cache key).
 */
@Entity({ name: 'tool_last_errors' })
export class ToolLastErrorEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_tool_last_errors' })
  toolId!: string;

  @OneToOne(() => ToolEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool_id', foreignKeyConstraintName: 'fk_tool_last_errors_tool' })
  tool?: ToolEntity;

  @Column({ type: 'timestamptz' })
  occurredAt!: Date;

  @Column({ type: 'text' })
  errorId!: string;

  /** A `ToolFailureKind`; a check constraint keeps out anything else. */
  @Column({ type: 'text' })
  kind!: toolExecutor.ToolFailureKind;

  @Column({ type: 'text' })
  detail!: string;
}
