import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { PromptsService } from '../prompts/prompts.service';
import { ResourcesService } from '../resources/resources.service';
import { SkillsService } from '../skills/skills.service';
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

  private async seedTenant(fixtures: SeedFixtures): Promise<void> {
    let written = 0;
    for (const resource of fixtures.resources) if ((await this.resources.putResource(fixtures.tenant, resource)) !== 'unchanged') written++;
    for (const template of fixtures.templates) if ((await this.resources.putResourceTemplate(fixtures.tenant, template)) !== 'unchanged') written++;
    for (const prompt of fixtures.prompts) if ((await this.prompts.putPrompt(fixtures.tenant, prompt)) !== 'unchanged') written++;
    for (const skill of fixtures.skills) {
      const files = Object.entries(skill.files).map(([path, text]) => ({ path, data: Buffer.from(text, 'utf8') }));
      if ((await this.skills.write(fixtures.tenant, skill.name, files, skill.servers)) !== 'unchanged') written++;
    }
    if (written) this.logger.debug(`seeded ${written} item(s) of tenant ${fixtures.tenant}`);
  }
}
