import preset from '../../jest.preset.js';

/**
 * End-to-end suites: npm installs, child processes and a browser, so no coverage and a safety net
 * of 10 minutes per test: a type-check of 16.5 s alone passed 60 s at load 16 (2 cores).
 */
export default {
  ...preset,
  testTimeout: 600_000,
  verbose: true,
  collectCoverageFrom: [],
};
