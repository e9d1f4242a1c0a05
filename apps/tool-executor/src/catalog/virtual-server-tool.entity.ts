import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ToolEntity } from './tool.entity';
import { VirtualServerEntity } from './virtual-server.entity';

/** Which tools a virtual server exposes. */
@Entity({ name: 'virtual_server_tools' })
@Index('ix_virtual_server_tools_tool', ['toolId'])
export class VirtualServerToolEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_virtual_server_tools' })
  virtualServerId!: string;

  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_virtual_server_tools' })
  toolId!: string;

  @ManyToOne(() => VirtualServerEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'virtual_server_id', foreignKeyConstraintName: 'fk_virtual_server_tools_server' })
  virtualServer?: VirtualServerEntity;

  @ManyToOne(() => ToolEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool_id', foreignKeyConstraintName: 'fk_virtual_server_tools_tool' })
  tool?: ToolEntity;
}
