import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import type { JsonObject } from '../catalog/catalog.types';
import { UpstreamSourceEntity } from './upstream-source.entity';

/**
 * One item an upstream lists, with its pin: the definition last observed and the one an administrator
 * (or the source's policy) approved, each with its digest. Only the approved definition is served.
 */
@Entity({ name: 'upstream_items' })
export class UpstreamItemEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_upstream_items' })
  sourceId!: string;

  @ManyToOne(() => UpstreamSourceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'source_id', foreignKeyConstraintName: 'fk_upstream_items_source' })
  source?: UpstreamSourceEntity;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_upstream_items' })
  kind!: toolExecutor.UpstreamItemKind;

  /** The upstream's own name (a resource's: its URI). */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_upstream_items' })
  name!: string;

  @Column({ type: 'text' })
  status!: toolExecutor.UpstreamItemStatus;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  observed!: JsonObject | null;

  @Column({ type: 'text', nullable: true })
  observedDigest!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  approved!: JsonObject | null;

  @Column({ type: 'text', nullable: true })
  approvedDigest!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  approvedAt!: Date | null;

  @Column({ type: 'text', nullable: true })
  approvedBy!: string | null;
}
