'use strict';
// ESLint's flat configuration for the repository's JavaScript that no Node.js
// variant lints itself (the harness's trivial server, this file): the same
// recommended rules as node-engine's, CommonJS on Node.js 24. The unit tier
// runs it with --max-warnings=0 (harness/tradebench_harness/suites/testrun.py).
const js = require('@eslint/js');
const globals = require('globals');

const rules = {
  'no-unused-vars': ['error', { args: 'after-used' }],
  eqeqeq: ['error', 'always', { null: 'ignore' }],
  'no-var': 'error',
  'prefer-const': 'error',
  // Size: a function a reader takes in at once. An exception says why, beside it.
  complexity: ['error', 12],
  'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
};

module.exports = [
  { ignores: ['**/node_modules/'] },
  js.configs.recommended,
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { ...rules, strict: ['error', 'global'] },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
    rules,
  },
];
