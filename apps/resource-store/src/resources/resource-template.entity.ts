import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { CompletionSource, JsonObject, UpstreamOrigin } from '../store/store.types';

/** One RFC 6570 (level 1) resource template of a tenant, with the recipe its reads are filled from. */
@Entity({ name: 'resource_templates' })
@Index('uq_resource_templates_tenant_name', ['tenant', 'name'], { unique: true })
export class ResourceTemplateEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  tenant!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  uriTemplate!: string;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text', nullable: true })
  mimeType!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  annotations!: JsonObject | null;

  @Column({ type: 'jsonb', nullable: true })
  icons!: JsonObject[] | null;

  /** The text of a read, with `{var}` placeholders filled from the matched URI. */
  @Column({ type: 'text' })
  textRecipe!: string;

  /** Completion values per template variable. */
  @Column({ type: 'jsonb', default: () => `'{}'::jsonb` })
  completions!: Record<string, CompletionSource>;

  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  servers!: string[];

  /** Where an upstream item comes from (its source and its name there); `null` for the store's own item. */
  @Column({ type: 'jsonb', nullable: true })
  upstream!: UpstreamOrigin | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
