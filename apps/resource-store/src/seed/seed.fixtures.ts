import type { z } from 'zod';
import type { PromptDefinitionSchema, ResourceDefinitionSchema, ResourceTemplateDefinitionSchema } from '../store/store.types';
import { CONFORMANCE_SKILLS, DEMO_SKILLS, type SkillFixture } from './seed-skills.fixtures';

/** One tenant's seed: what a fresh install holds. */
export interface SeedFixtures {
  tenant: string;
  resources: z.input<typeof ResourceDefinitionSchema>[];
  templates: z.input<typeof ResourceTemplateDefinitionSchema>[];
  prompts: z.input<typeof PromptDefinitionSchema>[];
  skills: SkillFixture[];
}

/** A real 2×2 PNG (one blue colour), base64: the same picture the tool executor's fixtures use. */
export const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR42mOQy78JRAwQCgAkSgWZQLmMMwAAAABJRU5ErkJggg==';

/**
 * Exactly the fixtures the official conformance suite expects of `conformance/everything`
 * (`shared/spec/conformance.md`, "Server-side fixtures": resources-*, prompts-*, completion-complete).
 */
export const CONFORMANCE_FIXTURES: SeedFixtures = {
  tenant: 'conformance',
  skills: CONFORMANCE_SKILLS,
  resources: [
    {
      uri: 'test://static-text',
      name: 'static-text',
      title: 'Static text resource',
      description: 'A static text resource for testing.',
      mimeType: 'text/plain',
      text: 'This is the content of the static text resource.',
      servers: ['everything'],
    },
    {
      uri: 'test://static-binary',
      name: 'static-binary',
      title: 'Static binary resource',
      description: 'A static binary resource (a PNG image) for testing.',
      mimeType: 'image/png',
      blob: TINY_PNG_BASE64,
      servers: ['everything'],
    },
    {
      uri: 'test://watched-resource',
      name: 'watched-resource',
      title: 'Watched resource',
      description: 'A resource to subscribe to; it changes when an administrator writes it.',
      mimeType: 'text/plain',
      text: 'Watched resource content.',
      servers: ['everything'],
    },
  ],
  templates: [
    {
      name: 'template-data',
      uriTemplate: 'test://template/{id}/data',
      title: 'Template data',
      description: 'A resource template: any id gives a small JSON document.',
      mimeType: 'application/json',
      text: '{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}',
      completions: { id: ['1', '2', '3', '123'] },
      servers: ['everything'],
    },
  ],
  prompts: [
    {
      name: 'test_simple_prompt',
      title: 'Simple prompt',
      description: 'A simple prompt without arguments.',
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
      servers: ['everything'],
    },
    {
      name: 'test_prompt_with_arguments',
      title: 'Prompt with arguments',
      description: 'A prompt with two required arguments.',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true, completionValues: ['test', 'testValue1', 'value1', 'other'] },
        { name: 'arg2', description: 'Second test argument', required: true, completionValues: ['test', 'testValue2', 'value2', 'other'] },
      ],
      messages: [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'" } }],
      servers: ['everything'],
    },
    {
      name: 'test_prompt_with_embedded_resource',
      title: 'Prompt with an embedded resource',
      description: 'A prompt embedding the resource whose URI it is given.',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      messages: [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: '{{resourceUri}}', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
      servers: ['everything'],
    },
    {
      name: 'test_prompt_with_image',
      title: 'Prompt with an image',
      description: 'A prompt carrying an image.',
      messages: [
        { role: 'user', content: { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
      servers: ['everything'],
    },
    {
      name: 'test_input_required_result_prompt',
      title: 'Prompt that asks the user first',
      description: 'A prompt that asks the user for its context (elicitation) before it renders (SEP-2322).',
      inputs: [
        {
          key: 'user_context',
          message: 'What context should the prompt use?',
          requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
        },
      ],
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: 'Answer with this context in mind: {{#user_context.context}}{{user_context.context}}{{/user_context.context}}' },
        },
      ],
      servers: ['everything'],
    },
  ],
};

const PLATFORM_GUIDE = `# The MCP platform in five minutes

This tenant's virtual server \`default\` is served at \`/demo/default/mcp\`. Sign in as the demo user
to obtain a token; any MCP client that speaks OAuth 2.1 does this by itself.

## What is here

- **Tools**: current time in any time zone, a calculator, UUIDs, hashes (\`hash_text\` needs the
  \`demo:crypto\` scope: your client will be asked to step up), text statistics.
- **Resources**: this guide, the platform's status as JSON, and notes under \`demo://notes/{topic}\`.
- **Prompts**: \`summarize\`, \`code_review\` and \`explain_error\`, with completion for their arguments.

## Both protocol eras

Clients of the 2025-11-25 revision get sessions and subscriptions; clients of the newer stateless
revision get caching hints (\`ttlMs\`, \`cacheScope\`) on every list and read.
`;

const CODE_LANGUAGES = ['typescript', 'javascript', 'python', 'go', 'rust', 'java', 'kotlin', 'csharp', 'ruby', 'sql', 'shell'];

/** The `demo` tenant: resources and prompts someone would actually use. */
export const DEMO_FIXTURES: SeedFixtures = {
  tenant: 'demo',
  skills: DEMO_SKILLS,
  resources: [
    {
      uri: 'demo://guide',
      name: 'guide',
      title: 'Platform guide',
      description: 'What this demo server offers and how to use it.',
      mimeType: 'text/markdown',
      text: PLATFORM_GUIDE,
      annotations: { audience: ['user', 'assistant'], priority: 0.9 },
    },
    {
      uri: 'demo://status.json',
      name: 'status',
      title: 'Platform status',
      description: 'The eras, transports and features this platform serves, as JSON.',
      mimeType: 'application/json',
      text: `${JSON.stringify(
        {
          protocolVersions: ['2025-11-25', '2026-07-28'],
          transports: ['streamable-http'],
          features: { tools: true, resources: true, prompts: true, completions: true },
        },
        null,
        2,
      )}\n`,
      annotations: { audience: ['assistant'], priority: 0.5 },
    },
    {
      uri: 'demo://logo.png',
      name: 'logo',
      title: 'Logo',
      description: 'A (very small) picture.',
      mimeType: 'image/png',
      blob: TINY_PNG_BASE64,
    },
  ],
  templates: [
    {
      name: 'notes',
      uriTemplate: 'demo://notes/{topic}',
      title: 'Notes on a topic',
      description: 'A short note on a topic of the platform (oauth, sessions, caching, subscriptions).',
      mimeType: 'text/markdown',
      text: '# Notes: {topic}\n\nRead the platform guide (demo://guide) first; the notes on {topic} are kept short on purpose.\n',
      completions: { topic: ['oauth', 'sessions', 'caching', 'subscriptions', 'tools', 'prompts'] },
    },
  ],
  prompts: [
    {
      name: 'summarize',
      title: 'Summarize a text',
      description: 'Summarizes a text in a few sentences.',
      arguments: [
        { name: 'text', description: 'The text to summarize', required: true },
        { name: 'length', description: 'How long the summary may be', completionValues: ['one sentence', 'three sentences', 'one paragraph'] },
      ],
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize the following text{{#length}} ({{length}}){{/length}}:\n\n{{text}}' } }],
    },
    {
      name: 'code_review',
      title: 'Review code',
      description: 'Reviews a piece of code for bugs, readability and security.',
      arguments: [
        { name: 'code', description: 'The code to review', required: true },
        { name: 'language', description: 'Its programming language', completionValues: CODE_LANGUAGES },
      ],
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: 'Review this {{#language}}{{language}} {{/language}}code. List bugs first, then security problems, then readability; quote the lines you mean.\n\n```{{language}}\n{{code}}\n```',
          },
        },
      ],
    },
    {
      name: 'explain_error',
      title: 'Explain an error',
      description: 'Explains an error message and suggests a fix, with the platform guide at hand.',
      arguments: [
        { name: 'error', description: 'The error message or stack trace', required: true },
        { name: 'language', description: 'The language or runtime', completionValues: CODE_LANGUAGES },
        {
          name: 'framework',
          description: 'The framework, if any (suggestions depend on the language)',
          completionValues: {
            dependsOn: 'language',
            byValue: {
              typescript: ['nestjs', 'express', 'fastify', 'react', 'next'],
              javascript: ['express', 'fastify', 'react', 'vue'],
              python: ['django', 'fastapi', 'flask', 'pandas'],
              go: ['gin', 'echo'],
              rust: ['axum', 'actix-web', 'tokio'],
              java: ['spring', 'quarkus'],
            },
          },
        },
      ],
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: 'demo://guide', mimeType: 'text/markdown', text: PLATFORM_GUIDE } } },
        {
          role: 'user',
          content: {
            type: 'text',
            text: 'Explain this {{#language}}{{language}} {{/language}}{{#framework}}{{framework}} {{/framework}}error in plain words, then suggest the smallest fix:\n\n{{error}}',
          },
        },
      ],
    },
  ],
};
