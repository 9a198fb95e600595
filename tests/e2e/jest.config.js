import preset from '../../jest.preset.js';

/** End-to-end suites: npm installs, child processes and a browser, so generous timeouts and no coverage. */
export default {
  ...preset,
  testTimeout: 60_000,
  verbose: true,
  collectCoverageFrom: [],
};
