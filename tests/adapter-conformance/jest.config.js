import preset from '../../jest.preset.js';

// No source of its own: the adapters' code is covered by their own suites' thresholds.
export default { ...preset, collectCoverageFrom: [] };
