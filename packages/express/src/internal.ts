/**
 * `@authlayer/express/internal`: the plumbing of the mode loader, outside the semver promise of
 * the main entry point while 0.x.
 */
export { loadModeHandler, modePackageName } from './load-mode.js';
export type { LoadedMode } from './load-mode.js';
