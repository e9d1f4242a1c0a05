import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UpstreamSourceEntity } from '../upstreams/upstream-source.entity';
import { VirtualServerEntity } from './virtual-server.entity';

/** An upstream source whose every tool a virtual server exposes (issue 15 §3), but the hidden ones. */
@Entity({ name: 'virtual_server_sources' })
@Index('ix_virtual_server_sources_source', ['sourceId'])
export class VirtualServerSourceEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_virtual_server_sources' })
  virtualServerId!: string;

  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_virtual_server_sources' })
  sourceId!: string;

  /** Catalog names (`<prefix>__<name>`) of the source's tools the server does not expose; they need not exist yet. */
  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  hidden!: string[];

  @ManyToOne(() => VirtualServerEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'virtual_server_id', foreignKeyConstraintName: 'fk_virtual_server_sources_server' })
  virtualServer?: VirtualServerEntity;

  @ManyToOne(() => UpstreamSourceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'source_id', foreignKeyConstraintName: 'fk_virtual_server_sources_source' })
  source?: UpstreamSourceEntity;
}
