import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn, VersionColumn } from 'typeorm';
import type { JsonObject, UpstreamOrigin } from '../store/store.types';

/** One file of a skill as its manifest records it; its bytes are the resource row at `skill://<name>/<path>`. */
export interface SkillFileRecord {
  path: string;
  /** `sha256:<64 lowercase hex>` of the file's bytes. */
  digest: string;
  size: number;
  mimeType: string;
}

/** A skill of a tenant (SEP-2640): its `SKILL.md` frontmatter, its files' manifest, where it is served. */
@Entity({ name: 'skills' })
@Index('uq_skills_tenant_name', ['tenant', 'name'], { unique: true })
export class SkillEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  tenant!: string;

  @Column({ type: 'text' })
  name!: string;

  /** The `SKILL.md` frontmatter as JSON, every field the author wrote (`skills/list` serves it verbatim). */
  @Column({ type: 'jsonb' })
  frontmatter!: JsonObject;

  /** Every file, `SKILL.md` first, then by path. */
  @Column({ type: 'jsonb' })
  files!: SkillFileRecord[];

  /** Bytes over all files (the quota counts them as the resource rows' sizes). */
  @Column({ type: 'integer' })
  size!: number;

  /** Names of the tenant's virtual servers serving it; empty: every server of the tenant. */
  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  servers!: string[];

  /**
   * The upstream source serving it (`name`: its `SKILL.md` URI; the row's `name` is then the skill path
   * of that URI), `null` for the tenant's own skill.
   */
  @Column({ type: 'jsonb', nullable: true })
  upstream!: UpstreamOrigin | null;

  @VersionColumn({ type: 'integer' })
  version!: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
