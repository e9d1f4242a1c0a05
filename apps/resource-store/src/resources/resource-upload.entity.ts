import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * An upload in progress: the resource it will write and what it has received so far. Its chunks are
 * `ResourceUploadChunkEntity` rows; the commit joins them into the resource and deletes both.
 */
@Entity({ name: 'resource_uploads' })
@Index('ix_resource_uploads_updated_at', ['updatedAt'])
export class ResourceUploadEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  tenant!: string;

  @Column({ type: 'text' })
  uri!: string;

  @Column({ type: 'text' })
  mimeType!: string;

  /** What the upload stages: a resource's content, or a skill's archive (`uri` is then `skill://<name>`). */
  @Column({ type: 'text', default: 'resource' })
  kind!: 'resource' | 'skill';

  /** Metadata given with the upload; `null` keeps the existing resource's (a new one needs `name`). */
  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  servers!: string[] | null;

  @Column({ type: 'integer', default: 0 })
  receivedBytes!: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  /** The last append: an upload idle for longer than the store's timeout is swept. */
  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
