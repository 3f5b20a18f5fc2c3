// Lint: typescript-eslint's recommended rules, type-only imports marked, and the dependency rule of the layout:
// capabilities never import src/http or Hono, and the engine imports nothing from Workers, Hono or drizzle.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const httpImports = { group: ['**/http', '**/http/**'], message: 'Only src/http imports src/http: capabilities stay free of HTTP.' };
const honoImports = { group: ['hono', 'hono/*', '@hono/*'], message: 'Hono stays in src/http: capabilities are framework-free.' };
const platformImports = {
  group: ['cloudflare:*', 'hono', 'hono/*', '@hono/*', 'drizzle-orm', 'drizzle-orm/*'],
  message: 'The engine is plain TypeScript: no Workers, Hono or drizzle imports.',
};

export default tseslint.config(
  { ignores: ['node_modules/', '.wrangler/', 'migrations/', 'coverage/', '**/dist/', 'public/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // TypeScript checks names; the core rule does not know the Workers and Node globals.
      'no-undef': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests read JSON answers loosely and assert on what they found.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/http/**', 'src/index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [httpImports, honoImports] }] },
  },
  {
    files: ['src/search/engine/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [httpImports, platformImports] }] },
  },
);
