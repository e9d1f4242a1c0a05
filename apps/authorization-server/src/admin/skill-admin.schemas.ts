import { z } from 'zod';
import { resourceStore } from '@mcp-platform/protocol-contracts';

/**
 * Answers and parameters of the skill routes (SEP-2640 agent skills), from the resource store's
 * contracts (`skill.contracts.ts`), so the admin API documents exactly what the store serves.
 */

/** A skill's name in a path: the Agent Skills naming rule, equal to its `SKILL.md` frontmatter `name`. */
export const SkillNameSchema = resourceStore.SkillNameSchema;

const ServerList = z
  .string()
  .max(100 * 66)
  .transform((list) =>
    list
      .split(',')
      .map((server) => server.trim())
      .filter((server) => server !== ''),
  )
  .pipe(z.array(z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/)).max(100));

/** The optional query of an upload: which servers serve the skill. */
export const SkillUploadQuerySchema = z.object({
  servers: ServerList.optional().describe(
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
  servers: z
    .array(z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/))
    .max(100)
    .describe('Empty: every server of the tenant'),
});
export type SkillServersBody = z.output<typeof SkillServersBodySchema>;
