import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { isRpcError } from '@mcp-platform/shared-messaging';
import { PromptsService } from '../prompts/prompts.service';
import { ResourcesService } from '../resources/resources.service';
import { SkillsService } from '../skills/skills.service';
import type { PutOutcome } from '../store/definition-writes';
import { UPSTREAM_ITEM_CODE } from '../upstream-items/upstream-refusals';
import { CONFORMANCE_FIXTURES, DEMO_FIXTURES, type SeedFixtures } from './seed.fixtures';

/** Writes the seed fixtures at boot when enabled; idempotent (identical items are left alone), safe with several replicas. */
@Injectable()
export class SeedService implements OnModuleInit {
  private readonly logger = new Logger(SeedService.name);

  constructor(
    private readonly resources: ResourcesService,
    private readonly prompts: PromptsService,
    private readonly skills: SkillsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.seed();
  }

  async seed(): Promise<void> {
    for (const fixtures of [CONFORMANCE_FIXTURES, DEMO_FIXTURES]) await this.seedTenant(fixtures);
  }

  /**
   * One fixture's write, or `unchanged` when an upstream source serves its key: an administrator deleted
   * the fixture and a source took the name since, which the seed must not undo (nor fail the boot over).
   */
  private async unlessUpstream(tenant: string, write: () => Promise<PutOutcome>): Promise<PutOutcome> {
    try {
      return await write();
    } catch (error) {
      if (!isRpcError(error) || (error.data as { code?: unknown } | undefined)?.code !== UPSTREAM_ITEM_CODE) throw error;
      this.logger.warn(`seed of tenant ${tenant} left out: ${error.message}`);
      return 'unchanged';
    }
  }

  private async seedTenant(fixtures: SeedFixtures): Promise<void> {
    const { tenant } = fixtures;
    let written = 0;
    for (const resource of fixtures.resources)
      if ((await this.unlessUpstream(tenant, () => this.resources.putResource(tenant, resource))) !== 'unchanged') written++;
    for (const template of fixtures.templates) {
      if ((await this.unlessUpstream(tenant, () => this.resources.putResourceTemplate(tenant, template))) !== 'unchanged') written++;
    }
    for (const prompt of fixtures.prompts) if ((await this.unlessUpstream(tenant, () => this.prompts.putPrompt(tenant, prompt))) !== 'unchanged') written++;
    for (const skill of fixtures.skills) {
      const files = Object.entries(skill.files).map(([path, text]) => ({ path, data: Buffer.from(text, 'utf8') }));
      if ((await this.skills.write(fixtures.tenant, skill.name, files, skill.servers)) !== 'unchanged') written++;
    }
    if (written) this.logger.debug(`seeded ${written} item(s) of tenant ${fixtures.tenant}`);
  }
}
