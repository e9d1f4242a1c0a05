// Lint with teeth (STYLE.md §1 and §8): module boundaries from a closed tag vocabulary, promise
// rules as errors, no `any`, type-only imports marked, `process.env` read only where config is
// loaded, size and complexity limits (files, functions, parameters, branches), and switches that
// cover every member of the union they switch on; imports sorted (side effects, node:, packages, our
// libs, relative). `npm run lint` runs this with `--max-warnings 0`, then Prettier's check; `npm run
// format` rewrites both; `npm run check:tags` checks the tags.
// The boundary rule reads Nx's cached project graph and silently skips without one, so `npm run lint`
// refreshes it first (`nx show projects`).
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import { defineConfig, globalIgnores } from 'eslint/config';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';
import { APP_SCOPES } from './tools/project-tags.mjs';

/** Imports a framework-free (`platform:neutral`) project may never make. */
const NODE_ONLY_PACKAGES = ['@nestjs/*', 'typeorm', 'typeorm-pglite', 'pg', 'nats', '@electric-sql/*', 'fastify', '@fastify/*', 'nestjs-pino'];

/**
 * Scope rules. An app may use its own scope and `shared`; since every app has a scope of its own
 * (tools/project-tags.mjs enforces it), this is also what forbids one app importing another.
 *
 * The one exception is `scope:standalone`, the embedded host that boots the five app modules in one
 * process: it may depend on every scope, so it can import `@mcp-platform/<app>` (each app's
 * `src/index.ts`, which exports its feature module). The exception is granted by the standalone's own
 * constraint, so no other project gains anything from it. (Tests that boot the whole platform
 * through `startStandalone` therefore live in apps/standalone/test.)
 */
function scopeConstraints() {
  return [
    ...APP_SCOPES.map((scope) => ({
      sourceTag: `scope:${scope}`,
      onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared'],
    })),
    { sourceTag: 'scope:standalone', onlyDependOnLibsWithTags: ['scope:standalone', 'scope:shared', ...APP_SCOPES.map((scope) => `scope:${scope}`)] },
    { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  ];
}

/**
 * Layer rules (anchors-study §8.2 item 4), adjusted to what the code is:
 * - `type:app` may use every layer, `type:app` included: app-to-app imports are already refused by
 *   the scope rules above, except for the standalone host, whose whole purpose is to import the apps.
 * - `type:feature` is an app-owned slice of features extracted into a lib (none yet).
 * - `type:data-access` is the infrastructure behind ports: the bus (messaging), the database
 *   (persistence) and the process plumbing that watches them (observability: pino, health probes
 *   over the bus connection, `runService` booting the bus's microservice). They may use one another
 *   (persistence adds a readiness check to observability's probe; observability reads messaging's
 *   connection; the graph stays acyclic, which the rule also checks), contracts, protocol and util,
 *   never features or apps.
 * - `type:contracts` may use only protocol (contract schemas are built from MCP's Zod schemas).
 * - `type:protocol` depends on nothing of ours.
 * - `type:util` is leaf helpers (env fragments); it may read protocol and contracts schemas.
 * - `type:testing` may use everything but apps (it boots them through functions passed in).
 */
const typeConstraints = [
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: ['type:app', 'type:feature', 'type:data-access', 'type:contracts', 'type:protocol', 'type:util', 'type:testing'],
  },
  { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:contracts', 'type:protocol', 'type:util'] },
  { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:data-access', 'type:contracts', 'type:protocol', 'type:util'] },
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', 'type:protocol'] },
  { sourceTag: 'type:protocol', onlyDependOnLibsWithTags: ['type:protocol'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:protocol', 'type:contracts'] },
  {
    sourceTag: 'type:testing',
    onlyDependOnLibsWithTags: ['type:testing', 'type:feature', 'type:data-access', 'type:contracts', 'type:protocol', 'type:util'],
  },
];

/** Framework-free code stays framework-free: only neutral projects, and no Node-only packages. */
const platformConstraints = [
  { sourceTag: 'platform:neutral', onlyDependOnLibsWithTags: ['platform:neutral'], bannedExternalImports: NODE_ONLY_PACKAGES },
  { sourceTag: 'platform:node', onlyDependOnLibsWithTags: ['platform:node', 'platform:neutral'] },
];

const boundaries = [
  'error',
  {
    // No `allow` list: an allowed import skips every check, so the one exception lives in depConstraints.
    allow: [],
    enforceBuildableLibDependency: false,
    checkNestedExternalImports: true,
    depConstraints: [...scopeConstraints(), ...typeConstraints, ...platformConstraints],
  },
];

const TEST_FILES = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts'];

/**
 * Where `process.env` may be read: each app's config loader, bootstraps, tests, the test-only
 * `type:testing` libs (they find the CI's PostgreSQL and NATS), and scripts.
 */
const ENV_READERS = ['**/src/config/**', '**/src/main.ts', ...TEST_FILES, 'libs/*/testing/**', 'tools/**', 'bench/**', '*.mjs', '*.mts'];

const PROCESS_ENV_MESSAGE = 'Read the environment only in src/config/ (a Zod schema loaded once at boot, STYLE.md §6) and pass typed values on.';

/** Globals of Node scripts (`.mjs` under tools/ and bench/), without another dependency for them. */
const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'queueMicrotask',
    'structuredClone',
    'fetch',
    'Response',
    'Request',
    'Headers',
    'performance',
    'globalThis',
  ].map((name) => [name, 'readonly']),
);

/**
 * Size and complexity limits of production code (tests are long lists of cases and are exempt, but
 * for the file size). The anchors keep theirs near these numbers.
 */
const SIZE_RULES = {
  'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }],
  'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
  complexity: ['error', 15],
  'max-depth': ['error', 4],
  'max-params': ['error', 6],
};

/**
 * Code older than the limits, each a known debt to split (issue 14 named them): no file joins this
 * list; one leaves it when it is split.
 */
const OVER_THE_LIMITS = {
  complexity: [
    'apps/authorization-server/src/clients/clients.service.ts',
    'apps/resource-store/src/prompts/prompt-inputs.ts',
    'apps/session-broker/src/auth/edge-authenticator.service.ts',
    'apps/session-broker/src/edge/mcp-endpoint.service.ts',
    'apps/session-broker/src/legacy/legacy-endpoint.service.ts',
    'apps/session-broker/src/modern/modern-endpoint.service.ts',
    'apps/session-broker/src/session-broker.options.ts',
    'apps/session-broker/src/tools/tool-methods.service.ts',
    'apps/standalone/src/start-standalone.ts',
    'apps/tool-executor/src/http-tools/http-answer.mapper.ts',
    'apps/tool-executor/src/tools/calls.service.ts',
    'libs/protocol/contracts/src/resource-store/uri-template.ts',
    'libs/protocol/mcp/src/json-rpc-message.ts',
    'libs/shared/auth/src/access-token.verifier.ts',
    'libs/shared/testing/src/hostile/hostile-requests.ts',
    'libs/shared/testing/src/oauth/cookie-jar.ts',
    'libs/shared/testing/src/oauth/html-forms.ts',
    'libs/shared/testing/src/oauth/oauth-browser.ts',
  ],
  'max-lines-per-function': ['apps/authorization-server/src/oauth/oidc-provider.configuration.ts', 'apps/tool-executor/src/builtin/calculator.ts'],
  // Nest constructor injection: a service with more collaborators than this wants splitting.
  'max-params': [
    'apps/authorization-server/src/interactions/interactions.service.ts',
    'apps/authorization-server/src/oauth/oauth-provider.service.ts',
    'apps/resource-store/src/resources/resources.service.ts',
    'apps/session-broker/src/broker-events.service.ts',
    'apps/session-broker/src/edge/mcp-endpoint.service.ts',
    'apps/session-broker/src/legacy/legacy-endpoint.service.ts',
    'apps/session-broker/src/methods/method-answer.ts',
  ],
  'max-lines': ['libs/shared/testing/src/hostile/hostile-requests.ts', 'apps/authorization-server/test/admin-api.int-spec.ts'],
};

export default defineConfig([
  globalIgnores(['**/dist/', '**/node_modules/', '.nx/', '**/coverage/', 'tmp/', 'data/']),

  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: NODE_GLOBALS },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },

  {
    files: ['**/*.ts', '**/*.mts'],
    extends: [tseslint.configs.recommended],
    plugins: { '@nx': nx },
    languageOptions: {
      // Type-aware rules: each file is checked with the nearest tsconfig.json (root for apps and libs,
      // tools/tsconfig.json for tools); root config files use a default project.
      parserOptions: { projectService: { allowDefaultProject: ['*.mts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@nx/enforce-module-boundaries': boundaries,
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // With emitDecoratorMetadata on, the rule leaves files with decorators alone, so Nest's
      // constructor injection keeps its runtime class references.
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Also catches `const { env } = process`.
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: PROCESS_ENV_MESSAGE }],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'process', importNames: ['env'], message: PROCESS_ENV_MESSAGE },
            { name: 'node:process', importNames: ['env'], message: PROCESS_ENV_MESSAGE },
          ],
        },
      ],
    },
  },

  {
    files: ['**/*.ts', '**/*.mts', '**/*.mjs', '**/*.js', '**/*.cjs'],
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      // One block, in this order: side-effect imports, node: built-ins, packages, our libs, relative paths.
      'simple-import-sort/imports': ['error', { groups: [['^\\u0000', '^node:', '^(@(?!mcp-platform/)|[a-z])', '^@mcp-platform/', '^\\.']] }],
      'simple-import-sort/exports': 'error',
    },
  },

  {
    files: ENV_READERS,
    rules: { 'no-restricted-properties': 'off', 'no-restricted-imports': 'off' },
  },

  {
    files: ['**/*.ts'],
    rules: {
      ...SIZE_RULES,
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    files: TEST_FILES,
    // Tests are long lists of cases, and Prettier wraps their wide assertions: 1,000 lines at most.
    rules: {
      'max-lines': ['error', { max: 1000, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': 'off',
      complexity: 'off',
      'max-depth': 'off',
    },
  },
  ...Object.entries(OVER_THE_LIMITS).map(([rule, files]) => ({ files, rules: { [rule]: 'off' } })),
]);
