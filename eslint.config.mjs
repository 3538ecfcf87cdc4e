// The floors of docs/ARCHITECTURE.md, kept by a linter: each floor imports only what stands below it
// (shared <- core foundation <- core features <- core assembly <- doors <- hosts <- cli), and the
// renderer and the preload only the contract. `npm run lint` runs it (scripts/test.sh too).
import stylistic from '@stylistic/eslint-plugin'
import boundaries from 'eslint-plugin-boundaries'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

const core = 'src/main/core'
const FOUNDATION = ['engines', 'store', 'sessions', 'checkpoints', 'streams', 'settings', 'logs']
const FEATURES = ['pause', 'snapshots', 'routes', 'workspace', 'secrets', 'servers', 'power', 'meter', 'doctor', 'desktop', 'jobs', 'services', 'replicas', 'devcontainer']

/** Each floor and what it may import, bottom up (a floor may always import itself). */
const FLOORS = [
  ['shared', ['src/shared/**'], []],
  ['foundation', [...FOUNDATION.map((f) => `${core}/${f}/**`), `${core}/*.ts`], ['shared']],
  ['feature', FEATURES.map((f) => `${core}/${f}/**`), ['shared', 'foundation']],
  ['assembly', [`${core}/{core,api,modules}{,.test}.ts`, ...FEATURES.map((f) => `${core}/${f}/${f}-module{,-*}{,.test}.ts`)], ['shared', 'foundation', 'feature']],
  ['door', ['src/main/doors/**'], ['shared', 'foundation', 'feature', 'assembly']],
  ['host', ['src/main/{daemon,index,serve}{,.test}.ts', 'src/main/electron/**'], ['shared', 'foundation', 'feature', 'assembly', 'door']],
  ['cli', ['src/cli/**'], ['shared', 'foundation', 'feature', 'assembly', 'door', 'host']],
  ['preload', ['src/preload/**'], ['shared']],
  ['renderer', ['src/renderer/**'], ['shared']],
]

// ('full' mode: patterns match whole paths, files included; the plugin's newer partialMatch option
// classifies folders only and so misses core.ts and its neighbours.) The more specific patterns first: an element is the first that matches (a module file is assembly,
// core.ts is not foundation).
const ORDER = ['shared', 'assembly', 'foundation', 'feature', 'door', 'host', 'cli', 'preload', 'renderer']
const elements = ORDER.map((type) => FLOORS.find((f) => f[0] === type)).map(([type, pattern]) => ({ type, pattern, mode: 'full' }))

export default [
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'build/**', 'resources/**'] },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 'latest', sourceType: 'module', ecmaFeatures: { jsx: true } } },
    plugins: { boundaries, 'react-hooks': reactHooks, '@stylistic': stylistic },
    settings: {
      'boundaries/elements': elements,
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.json'] } },
    },
    rules: {
      // the formatter check: the house style as it stands (no semicolons, single quotes, two-space
      // indents, no trailing blanks, a final newline); reformatting the tree would only churn history
      '@stylistic/semi': [2, 'never'],
      '@stylistic/quotes': [2, 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      '@stylistic/indent': [2, 2, { SwitchCase: 1, ignoredNodes: ['TemplateLiteral *', 'ConditionalExpression *'] }],
      '@stylistic/no-trailing-spaces': 2,
      '@stylistic/eol-last': 2,
      '@stylistic/no-tabs': 2,
      '@stylistic/no-multiple-empty-lines': [2, { max: 1, maxEOF: 0 }],
      '@stylistic/comma-dangle': [2, 'always-multiline'],
      '@stylistic/member-delimiter-style': [2, { multiline: { delimiter: 'none' }, singleline: { delimiter: 'semi', requireLast: false } }],
      'react-hooks/rules-of-hooks': 2,
      'react-hooks/exhaustive-deps': 1,
      'boundaries/dependencies': [
        2,
        {
          default: 'disallow',
          policies: FLOORS.map(([type, , below]) => ({
            from: { element: { type } },
            allow: { to: { element: { types: { anyOf: [type, ...below] } } } },
          })),
        },
      ],
    },
  },
]
