/** Shared jest settings: ts-jest's ESM preset, and `./x.js` imports mapped back to `./x.ts`. */
export default {
  testEnvironment: 'node',
  // A safety net for a test that hangs, never a measure of speed: tests wait for events (a line, an
  // exit, an answer). Generous because turbo runs several packages' suites side by side on a
  // 2-core machine, where at load 16 a test takes ten times as long as alone.
  testTimeout: 300_000,
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  collectCoverageFrom: ['<rootDir>/src/**/*.ts'],
  coverageReporters: ['text-summary', 'lcov'],
};
