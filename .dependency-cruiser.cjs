/**
 * The layer rule (docs/architecture.md), checked by `npm run lint:layers` as part of `npm test`.
 * Type-only imports count: a cycle through `import type` still ties the folders together.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Folders are layers: a folder never depends, even through types, on one that depends on it.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-imports-nothing-of-ours',
      comment: 'core/ is the data every layer shares; it stands on nothing above it.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'adapters-stand-on-the-spec',
      comment:
        'A provider adapter is pure translation: it imports the provider spec, streaming/, core/, ' +
        'providers/shared/ and its own folder, nothing of the gateway around it.',
      severity: 'error',
      from: { path: '^src/providers/([^/]+)/', pathNot: '^src/providers/(azure-openai|openai-compatible|openai-responses|vertex)/' },
      to: {
        path: '^src/',
        pathNot: ['^src/providers/$1/', '^src/providers/spec[.]ts$', '^src/providers/shared/', '^src/streaming/', '^src/core/'],
      },
    },
    {
      name: 'openai-variants-stand-on-the-openai-adapter',
      comment:
        'Azure OpenAI, the OpenAI-compatible hosts and the OpenAI Responses API speak the OpenAI wire (and its errors): ' +
        'they may also build on providers/openai/, and Azure on providers/openai-responses/.',
      severity: 'error',
      from: { path: '^src/providers/(azure-openai|openai-compatible|openai-responses)/' },
      to: {
        path: '^src/',
        pathNot: ['^src/providers/$1/', '^src/providers/openai/', '^src/providers/openai-responses/', '^src/providers/spec[.]ts$', '^src/providers/shared/', '^src/streaming/', '^src/core/'],
      },
    },
    {
      name: 'vertex-stands-on-the-anthropic-and-gemini-adapters',
      comment:
        'Vertex serves Claude in the Messages API wire and Gemini in the Gemini API wire, under its own paths: ' +
        'it may also build on providers/anthropic/ and providers/gemini/.',
      severity: 'error',
      from: { path: '^src/providers/vertex/' },
      to: {
        path: '^src/',
        pathNot: ['^src/providers/vertex/', '^src/providers/anthropic/', '^src/providers/gemini/', '^src/providers/spec[.]ts$', '^src/providers/shared/', '^src/streaming/', '^src/core/'],
      },
    },
    {
      name: 'engine-reaches-state-and-sinks-through-interfaces',
      comment:
        'The attempt loop is handed its state and sinks; it names their types, never their ' +
        'implementations, so the same loop runs on memory state, on Redis, or in a test.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: {
        path: '^src/(state|health|store|sinks|ledger|records|idempotency|telemetry)/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'only-the-root-imports-wiring',
      comment:
        'wiring/ builds the parts app.ts joins: it sits at the top with app.ts, and nothing but app.ts ' +
        '(and wiring/ itself) may import it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/app[.]ts$', '^src/wiring/'] },
      to: { path: '^src/wiring/' },
    },
    {
      name: 'http-holds-no-business-logic',
      comment:
        'http/ speaks HTTP: it never reaches the upstream side (adapters, credentials, transport) ' +
        'or storage (store, sinks) itself.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(providers/(?!spec[.]ts$)|credentials/|transport/|store/|sinks/)' },
    },
  ],
  options: {
    includeOnly: '^src/',
    exclude: { path: '[.]test[.]ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
