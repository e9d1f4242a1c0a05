import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { JsonObject, PromptArgumentDefinition, PromptInputDefinition, PromptMessageDefinition, UpstreamOrigin } from '../store/store.types';

/** One prompt of a tenant: its arguments and the message recipes `prompts/get` renders. */
@Entity({ name: 'prompts' })
@Index('uq_prompts_tenant_name', ['tenant', 'name'], { unique: true })
export class PromptEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  tenant!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  /** Always set for the store's own prompts; an upstream prompt may have none. */
  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  icons!: JsonObject[] | null;

  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  arguments!: PromptArgumentDefinition[];

  /** What the prompt asks the user before rendering. */
  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  inputs!: PromptInputDefinition[];

  /** Lists select without this column: message bodies may carry images. */
  @Column({ type: 'jsonb', select: false })
  messages!: PromptMessageDefinition[];

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
