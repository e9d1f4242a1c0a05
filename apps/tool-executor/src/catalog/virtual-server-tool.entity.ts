import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { ToolPresentation } from './catalog.types';
import { ToolEntity } from './tool.entity';
import { VirtualServerEntity } from './virtual-server.entity';

/** Which tools a virtual server exposes, each under one name of the server (the same tool may be exposed twice, under two names). */
@Entity({ name: 'virtual_server_tools' })
@Index('ix_virtual_server_tools_tool', ['toolId'])
export class VirtualServerToolEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_virtual_server_tools' })
  virtualServerId!: string;

  /** The name clients see and call: the tool's own, or the pick's rename. Unique on the server. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_virtual_server_tools' })
  exposedName!: string;

  @Column({ type: 'uuid' })
  toolId!: string;

  /** The pick as written, without `tool` (`ToolPresentation`); null: written as a plain name, exposed as it is. */
  @Column({ type: 'jsonb', nullable: true })
  presentation!: ToolPresentation | null;

  @ManyToOne(() => VirtualServerEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'virtual_server_id', foreignKeyConstraintName: 'fk_virtual_server_tools_server' })
  virtualServer?: VirtualServerEntity;

  @ManyToOne(() => ToolEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool_id', foreignKeyConstraintName: 'fk_virtual_server_tools_tool' })
  tool?: ToolEntity;
}
