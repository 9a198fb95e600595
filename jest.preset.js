/** Shared jest settings: ts-jest's ESM preset, and `./x.js` imports mapped back to `./x.ts`. */
export default {
  testEnvironment: 'node',
  // A bound, not a wait: suites that spawn processes or start servers can be slow on a loaded
  // 2-core CI machine, where turbo runs several packages' suites side by side.
  testTimeout: 30_000,
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  collectCoverageFrom: ['<rootDir>/src/**/*.ts'],
  coverageReporters: ['text-summary', 'lcov'],
};
