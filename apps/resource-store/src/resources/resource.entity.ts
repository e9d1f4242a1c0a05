import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn, VersionColumn } from 'typeorm';
import type { JsonObject, UpstreamOrigin } from '../store/store.types';

/** One resource of a tenant: its MCP metadata and its content (text or bytes, never both). */
@Entity({ name: 'resources' })
@Index('uq_resources_tenant_uri', ['tenant', 'uri'], { unique: true })
export class ResourceEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  tenant!: string;

  @Column({ type: 'text' })
  uri!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text', nullable: true })
  mimeType!: string | null;

  /** Bytes of the content (UTF-8 for text): what the quota counts and `Resource.size` says. */
  @Column({ type: 'integer' })
  size!: number;

  @Column({ type: 'jsonb', nullable: true })
  annotations!: JsonObject | null;

  @Column({ type: 'jsonb', nullable: true })
  icons!: JsonObject[] | null;

  /** Lists select without this column, so a page never reads content (S-241 pages stay cheap). */
  @Column({ type: 'text', nullable: true, select: false })
  text!: string | null;

  @Column({ type: 'bytea', nullable: true, select: false })
  blob!: Buffer | null;

  /** Names of the tenant's virtual servers exposing it; empty: every server of the tenant. */
  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  servers!: string[];

  /** The skill whose file this is (`skill://<skill>/…`, written only through the skills API); `null` for a plain resource. */
  @Column({ type: 'text', nullable: true })
  skill!: string | null;

  /** Where an upstream item comes from (its source and its name there); `null` for the store's own item. */
  @Column({ type: 'jsonb', nullable: true })
  upstream!: UpstreamOrigin | null;

  /** Raised by every write: a reader in chunks names it on each chunk, so it never joins two versions. */
  @VersionColumn({ type: 'integer' })
  version!: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
