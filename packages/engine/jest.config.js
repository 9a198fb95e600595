import preset from '../../jest.preset.js';

export default {
  ...preset,
  // What the engine's own suite reaches, less about half a point (a few branches depend on timing: a
  // socket closing first, a Redis reply); raise it as tests move here, toward core's. A run of one
  // file passes `--coverage=false`, as in core.
  coverageThreshold: { global: { branches: 90, functions: 93.9, lines: 96.7, statements: 95.6 } },
};
