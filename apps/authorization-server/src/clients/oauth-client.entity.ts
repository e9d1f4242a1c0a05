import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TenantEntity } from '../identity/tenants/tenant.entity';

/**
 * An OAuth client known in advance: pre-registered by a tenant's administrator (`tenantId` set), or
 * registered dynamically (RFC 7591, `tenantId` null). Client ID Metadata Document clients are never
 * stored here: their document is fetched and cached (S-163).
 */
@Entity({ name: 'oauth_clients' })
@Index('ix_oauth_clients_tenant', ['tenantId'])
export class OAuthClientEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_oauth_clients' })
  clientId!: string;

  @Column({ type: 'uuid', nullable: true })
  tenantId!: string | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_oauth_clients_tenant' })
  tenant?: TenantEntity | null;

  /** The client's registered metadata (RFC 7591 names), without any secret. */
  @Column({ type: 'jsonb' })
  metadata!: Record<string, unknown>;

  /** `hashClientSecret` of the secret; null for public clients (`token_endpoint_auth_method: none`). */
  @Column({ type: 'text', nullable: true })
  secretHash!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
