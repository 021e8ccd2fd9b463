// The linter's rules (ESLint 9, flat config), run by `npm run lint` and CI
// (.ci/run); docs/testing.md, "Lint and format", says what each rule is for.
//
// - The TypeScript of src/, test/, bench/ and web/sandbox/ is linted with its
//   types, by a chosen few of typescript-eslint's type-aware rules: those
//   that find bugs (a promise nobody awaits loses its error, a promise handed
//   where a callback's result is ignored runs unwatched, an await of what is
//   not a promise is a mistaken belief), not those that ask for another
//   style of code that works.
// - A function is at most 70 lines, blank lines and comments not counted: a
//   budget a machine keeps, with named exceptions, each saying why.
// - The plain JavaScript (bin/, scripts/, web/'s pages) gets ESLint's
//   recommended rules, which need no types.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Lines of one function, blank lines and comments not counted. */
const FUNCTION_LINES_MAX = 70;

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'test-artifacts/', 'bench/results/'] },
  js.configs.recommended,
  {
    rules: {
      // Matching control characters is the point where a wire format is checked (NUL, CR, LF in headers and ids).
      'no-control-regex': 'off',
      // A usage text's indent and columns are matched as they are printed, spaces and all.
      'no-regex-spaces': 'off',
    },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base, tseslint.configs.eslintRecommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test() and describe() return promises the runner itself awaits.
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      'no-unused-vars': 'off',
      // A leading underscore names what is there to be left out: a member dropped from a copy, a parameter a signature needs.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A `let` a closure reads before it is set (a logger, a stopper made later) is bound late on purpose.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'max-lines-per-function': ['error', { max: FUNCTION_LINES_MAX, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['web/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
