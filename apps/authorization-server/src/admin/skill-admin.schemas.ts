import { z } from 'zod';
import { resourceStore } from '@mcp-platform/protocol-contracts';
import { ServerListQuerySchema } from './resource-admin.schemas';

/**
 * Answers and parameters of the skill routes (SEP-2640 agent skills), from the resource store's
 * contracts (`skill.contracts.ts`), so the admin API documents exactly what the store serves.
 */

/** A skill's name in a path: the Agent Skills naming rule, equal to its `SKILL.md` frontmatter `name`. */
export const SkillNameSchema = resourceStore.SkillNameSchema;

/** The optional query of an upload: which servers serve the skill. */
export const SkillUploadQuerySchema = z.object({
  servers: ServerListQuerySchema.optional().describe(
    'Comma-separated names of the virtual servers serving the skill; empty: every server of the tenant. Absent: a new skill is on every server, a replaced one stays where it was',
  ),
});
export type SkillUploadQuery = z.output<typeof SkillUploadQuerySchema>;

export const SkillViewSchema = resourceStore.SkillSummarySchema;
export type SkillView = z.output<typeof SkillViewSchema>;

export const SkillListSchema = z.object({ skills: z.array(SkillViewSchema) });
export type SkillList = z.output<typeof SkillListSchema>;

export const SkillUploadResultSchema = z.object({ created: z.boolean(), skill: SkillViewSchema });
export type SkillUploadResult = z.output<typeof SkillUploadResultSchema>;

export const SkillServersBodySchema = z.object({
  servers: resourceStore.ServerNamesSchema.describe('Empty: every server of the tenant'),
});
export type SkillServersBody = z.output<typeof SkillServersBodySchema>;
