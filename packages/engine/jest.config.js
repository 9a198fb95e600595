import preset from '../../jest.preset.js';

export default {
  ...preset,
  // What the engine's own suite reaches, rounded down (much of the engine is still proven only
  // through the adapters' HTTP suites): raise it as tests move here. A run of one file passes
  // `--coverage=false`, as in core.
  coverageThreshold: { global: { branches: 66, functions: 61, lines: 69, statements: 67 } },
};
