import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider' with { 'resolution-mode': 'import' };
import type { OidcRecordsRepository } from './oidc-records.repository';

/**
 * oidc-provider's storage contract for one model, on the `oidc_records` table. The provider hands
 * `expiresIn` in seconds; the row's expiry is what reads check, the payload's own `exp` is checked
 * again by the provider.
 */
export class OidcRecordsAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly records: OidcRecordsRepository,
    private readonly now: () => number = Date.now,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    await this.records.upsert(this.model, id, payload as Record<string, unknown>, {
      grantId: payload.grantId ?? null,
      uid: payload.uid ?? null,
      userCode: payload.userCode ?? null,
      expiresAt: expiresIn > 0 ? new Date(this.now() + expiresIn * 1000) : null,
    });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return (await this.records.find(this.model, id)) as AdapterPayload | undefined;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return (await this.records.findByUid(this.model, uid)) as AdapterPayload | undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return (await this.records.findByUserCode(this.model, userCode)) as AdapterPayload | undefined;
  }

  async consume(id: string): Promise<void> {
    await this.records.consume(this.model, id);
  }

  async destroy(id: string): Promise<void> {
    await this.records.destroy(this.model, id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.records.revokeByGrantId(grantId);
  }
}

/**
 * The `adapter` of the provider's configuration: the `Client` model goes to the clients store
 * (pre-registered, DCR and Client ID Metadata Document clients), every other model to `oidc_records`.
 * One adapter instance per model, as oidc-provider expects.
 */
export function oidcAdapterFactory(records: OidcRecordsRepository, clients: Adapter): AdapterFactory {
  const adapters = new Map<string, Adapter>();
  return (model: string) => {
    if (model === 'Client') return clients;
    let adapter = adapters.get(model);
    if (!adapter) {
      adapter = new OidcRecordsAdapter(model, records);
      adapters.set(model, adapter);
    }
    return adapter;
  };
}
