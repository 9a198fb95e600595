/**
 * `@authlayer/express/internal`: the plumbing of the mode loader, outside the semver promise of
 * the main entry point while 0.x.
 */
export { loadModeHandler, modePackageName } from '@authlayer/engine/internal';
export type { LoadedMode } from '@authlayer/engine/internal';
