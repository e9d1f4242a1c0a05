import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// One runner, three tiers (STYLE.md §11). SWC keeps NestJS decorator metadata,
// and the source condition resolves workspace libs to their TypeScript sources.
const shared = {
  plugins: [
    swc.vite({
      swcrc: false,
      module: { type: 'es6' },
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        target: 'es2022',
        keepClassNames: true,
      },
    }),
  ],
  resolve: { conditions: ['@mcp-platform/source', 'node', 'import', 'default'] },
  ssr: { resolve: { conditions: ['@mcp-platform/source', 'node', 'import', 'default'], externalConditions: ['node'] } },
};

export default defineConfig({
  test: {
    projects: [
      { ...shared, test: { name: 'unit', include: ['{apps,libs}/**/src/**/*.spec.ts', 'tools/**/*.spec.ts'], environment: 'node' } },
      {
        ...shared,
        test: { name: 'int', include: ['{apps,libs}/**/*.int-spec.ts'], environment: 'node', testTimeout: 30_000, hookTimeout: 60_000, fileParallelism: false },
      },
      {
        ...shared,
        test: {
          name: 'e2e',
          include: ['{apps,libs}/**/*.e2e-spec.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
