import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { UpstreamSourceEntity } from './upstream-source.entity';

/** One approval of an upstream item's definition: who, when, which digest after which. Never updated. */
@Entity({ name: 'upstream_approvals' })
@Index('ix_upstream_approvals_source', ['sourceId', 'approvedAt'])
export class UpstreamApprovalEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'uuid' })
  sourceId!: string;

  @ManyToOne(() => UpstreamSourceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'source_id', foreignKeyConstraintName: 'fk_upstream_approvals_source' })
  source?: UpstreamSourceEntity;

  @Column({ type: 'text', default: 'tool' })
  kind!: toolExecutor.UpstreamItemKind;

  @Column({ type: 'text' })
  item!: string;

  /** An administrator's subject, or `policy:<policy>`. */
  @Column({ type: 'text' })
  actor!: string;

  @Column({ type: 'text' })
  digest!: string;

  @Column({ type: 'text', nullable: true })
  previousDigest!: string | null;

  @Column({ type: 'timestamptz' })
  approvedAt!: Date;
}
