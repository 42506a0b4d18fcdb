'use strict';
// ESLint's flat configuration for node-engine: its recommended rules over every
// source, test and support file, CommonJS on Node.js 24. `npm run lint` runs it;
// a finding fails the command.
const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  { ignores: ['node_modules/'] },
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'commonjs',
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A four-argument Express error handler must declare `next` to be one.
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^next$' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': 'error',
      strict: ['error', 'global'],
      // Size: a function a reader takes in at once. An exception says why, beside it.
      complexity: ['error', 12],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
];
