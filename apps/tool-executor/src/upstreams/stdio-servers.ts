import { z } from 'zod';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';

/** A value a tenant may give a stdio parameter unless the entry says otherwise: no shell or path tricks needed. */
const DEFAULT_PARAM_PATTERN = '^[A-Za-z0-9._@:/+=-]{1,256}$';

const ParamSchema = z.strictObject({
  description: z.string().max(1024).optional(),
  /** A secret parameter is write-only in the admin API and sealed at rest. */
  secret: z.boolean().default(false),
  /** A parameter without a default must be given. */
  default: z.string().max(4096).optional(),
  /** The whole value must match (an RE2-safe JavaScript regular expression); default: letters, digits and `._@:/+=-`. */
  pattern: z.string().max(512).default(DEFAULT_PARAM_PATTERN),
});

const TEMPLATE = /\{\{([A-Za-z][A-Za-z0-9_]{0,63})\}\}/g;

const EntrySchema = z.strictObject({
  title: z.string().max(256).optional(),
  description: z.string().max(4096).optional(),
  /** The program, as the operator installed it (an absolute path or a name on the executor's PATH). */
  command: z.string().min(1).max(4096),
  /** Arguments; `{{param}}` is replaced by the tenant's value of `param`, as one argument, never through a shell. */
  args: z.array(z.string().max(4096)).max(64).default([]),
  /** The child's whole environment besides PATH and HOME (nothing of the executor's is inherited); values may use `{{param}}`. */
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), z.string().max(8192)).default({}),
  cwd: z.string().max(4096).optional(),
  params: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/), ParamSchema).default({}),
});

/** The operator's allow-list (`UPSTREAM_STDIO_SERVERS`): entry name → how to run it. */
export const StdioServersSchema = z.record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/), EntrySchema).superRefine((entries, ctx) => {
  for (const [name, entry] of Object.entries(entries)) {
    for (const text of [...entry.args, ...Object.values(entry.env)]) {
      for (const [, param] of text.matchAll(TEMPLATE)) {
        if (param !== undefined && !Object.hasOwn(entry.params, param))
          ctx.addIssue({ code: 'custom', path: [name], message: `{{${param}}} names no parameter` });
      }
    }
    for (const [param, spec] of Object.entries(entry.params)) {
      try {
        new RegExp(spec.pattern, 'u');
      } catch {
        ctx.addIssue({ code: 'custom', path: [name, 'params', param, 'pattern'], message: 'not a valid regular expression' });
      }
    }
  }
});
export type StdioServers = z.output<typeof StdioServersSchema>;
export type StdioServer = StdioServers[string];

/** Parses the operator's allow-list (JSON); throws with the offending path, so the executor does not start with a bad one. */
export function parseStdioServers(json: string | undefined): StdioServers {
  if (json === undefined || json.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new Error(`UPSTREAM_STDIO_SERVERS is not JSON: ${(error as Error).message}`);
  }
  const parsed = StdioServersSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`UPSTREAM_STDIO_SERVERS is invalid: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** What a tenant admin sees of an entry: its parameters, never its command. */
export function stdioServerView(name: string, entry: StdioServer): z.output<typeof toolExecutor.StdioServerViewSchema> {
  return {
    name,
    ...(entry.title === undefined ? {} : { title: entry.title }),
    ...(entry.description === undefined ? {} : { description: entry.description }),
    params: Object.fromEntries(
      Object.entries(entry.params).map(([param, spec]) => [
        param,
        { ...(spec.description === undefined ? {} : { description: spec.description }), secret: spec.secret, required: spec.default === undefined },
      ]),
    ),
  };
}

/**
 * Checks a tenant's parameters against the entry: every one known, every required one given, each
 * value matching its pattern. Answers the problems, for an administrator; none when valid.
 */
export function checkStdioParams(entry: StdioServer, params: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(params)) if (!Object.hasOwn(entry.params, name)) problems.push(`unknown parameter ${name}`);
  for (const [name, spec] of Object.entries(entry.params)) {
    const value = params[name];
    if (value === undefined) {
      if (spec.default === undefined) problems.push(`parameter ${name} is required`);
      continue;
    }
    if (typeof value !== 'string') continue; // a kept secret ({ set: true }) was checked when it was written
    if (!new RegExp(spec.pattern, 'u').test(value)) problems.push(`parameter ${name} does not match ${spec.pattern}`);
  }
  return problems;
}

/** The command line and environment of an entry with the tenant's values filled in (each `{{param}}` as text, never through a shell). */
export function renderStdioServer(
  entry: StdioServer,
  values: Record<string, string>,
): { command: string; args: string[]; env: Record<string, string>; cwd?: string } {
  const fill = (text: string): string => text.replace(TEMPLATE, (_match, param: string) => values[param] ?? entry.params[param]?.default ?? '');
  return {
    command: entry.command,
    args: entry.args.map(fill),
    env: Object.fromEntries(Object.entries(entry.env).map(([key, value]) => [key, fill(value)])),
    ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
  };
}
