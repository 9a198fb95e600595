import { AUTH_MODES, type AuthConfig } from '@authlayer/core';
import { defaultSectionKey } from '@authlayer/core/internal';
import type { ImportModule } from '@authlayer/engine';
import { modePackageName } from '@authlayer/engine/internal';

type Checked = { readonly value?: unknown; readonly issues?: unknown };

/** What `--check` reads of a mode package: its section's key and its Standard Schema (see docs/modes.md). */
interface SectionModule {
  readonly section?: unknown;
  readonly configSchema?: { readonly '~standard': { validate(value: unknown): Checked | Promise<Checked> } };
}

const importByName: ImportModule = (specifier) => import(specifier);

/**
 * The config's mode sections for `--check`: each one that an installed package checks (a listed
 * mode's, or a spec mode's kept beside the listed ones, as the engine's loader checks them) as
 * that package read it, every default filled in; any other as written (the section of a package
 * that is not installed). `shape` turns a checked value into the YAML's own shape.
 */
export async function checkedSections(
  config: Pick<AuthConfig, 'modes' | 'modeSections'>,
  shape: (value: unknown) => unknown,
  importModule: ImportModule = importByName,
): Promise<Record<string, unknown>> {
  const written = config.modeSections ?? {};
  const sections: Record<string, unknown> = { ...written };
  for (const mode of new Set([...config.modes, ...AUTH_MODES])) {
    // The engine loaded the listed packages already: one missing (or broken) is left as written.
    const module = (await importModule(modePackageName(mode)).catch(() => undefined)) as SectionModule | undefined;
    const schema = module?.configSchema;
    if (schema === undefined) continue;
    const key = typeof module?.section === 'string' ? module.section : defaultSectionKey(mode);
    if (!config.modes.includes(mode) && !(key in written)) continue;
    const result = await schema['~standard'].validate(written[key]);
    if (result.issues === undefined) sections[key] = shape(result.value);
  }
  return sections;
}
