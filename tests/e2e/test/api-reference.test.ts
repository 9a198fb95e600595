// The API reference (typedoc.json, `pnpm docs:api`) and its check in `pnpm lint`: it covers every
// published package's main entry point, and the check fails on what it is there to catch.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { publicPackages, REPO_ROOT } from '../scripts/pack.mjs';

const CONFIG_PATH = join(REPO_ROOT, 'typedoc.json');
const TYPEDOC_BIN = join(REPO_ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc');
const ROOT_MANIFEST = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

interface TypedocConfig {
  entryPoints: string[];
  packageOptions: { entryPoints: string[] };
  packagesRequiringDocumentation: string[];
}

/** typedoc.json carries comments: read it as TypeScript reads a tsconfig. */
function readConfig(): TypedocConfig {
  const { config, error } = ts.parseConfigFileTextToJson(CONFIG_PATH, readFileSync(CONFIG_PATH, 'utf8'));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return config as TypedocConfig;
}

describe('the API reference', () => {
  const config = readConfig();

  it("documents each published package's main entry point, and requires docs of every one", () => {
    const packages = publicPackages();
    expect(config.entryPoints).toEqual(['packages/*']);
    expect([...config.packagesRequiringDocumentation].sort()).toEqual(packages.map(({ name }) => name).sort());
    expect(config.packageOptions.entryPoints).toEqual(['src/index.ts']);
    for (const { name, manifest } of packages) {
      // Any other code entry point would be missing from the reference: `./internal` is left
      // out on purpose, data files have no TSDoc.
      const exported = Object.keys(manifest.exports as Record<string, unknown>);
      const code = exported.filter((key) => key !== './internal' && key !== './package.json' && !key.endsWith('.json'));
      expect({ name, code }).toEqual({ name, code: ['.'] });
      expect({ name, types: (manifest.exports as Record<string, { types?: string }>)['.']?.types }).toEqual({
        name,
        types: './dist/index.d.ts',
      });
    }
  });

  it('is checked by pnpm lint with warnings as errors', () => {
    expect(ROOT_MANIFEST.scripts.lint).toContain('pnpm run lint:api');
    expect(ROOT_MANIFEST.scripts['lint:api']).toMatch(/^typedoc --emit none --treatWarningsAsErrors\b/);
  });

  describe('its check, on a package with the mistakes it is there to catch', () => {
    const dir = mkdtempSync(join(tmpdir(), 'authlayer-typedoc-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    function check(source: string): { status: number | null; output: string } {
      const pkg = mkdtempSync(join(dir, 'pkg-'));
      mkdirSync(join(pkg, 'src'), { recursive: true });
      writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'fixture', version: '0.0.0', type: 'module' }));
      writeFileSync(
        join(pkg, 'tsconfig.build.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            strict: true,
            types: [],
          },
          include: ['src'],
        }),
      );
      writeFileSync(join(pkg, 'src', 'index.ts'), source);
      // The root config and the lint script's flags; only the package differs.
      const result = spawnSync(
        process.execPath,
        [
          TYPEDOC_BIN,
          '--options',
          CONFIG_PATH,
          '--entryPoints',
          pkg,
          '--packagesRequiringDocumentation',
          'fixture',
          '--emit',
          'none',
          '--treatWarningsAsErrors',
          '--logLevel',
          'Warn',
        ],
        // typedoc's exit bounds it; the timeout only catches a hang, with room for a loaded machine.
        { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 },
      );
      return { status: result.status, output: `${result.stdout}${result.stderr}` };
    }

    it('passes a documented package', () => {
      const { status, output } = check(
        '/** Says hello. */\nexport function hello(): string {\n  return "hello";\n}\n/** Calls {@link hello}. */\nexport const greet = hello;\n',
      );
      expect({ status, output }).toEqual({ status: 0, output: '' });
    });

    it('fails on an undocumented export and on a {@link} that leads nowhere, naming each', () => {
      const { status, output } = check(
        'export function undocumented(): void {}\n/** See {@link Nowhere}. */\nexport const linked = 1;\n',
      );
      expect(status).not.toBe(0);
      expect(output).toMatch(/undocumented .*does not have any documentation/);
      expect(output).toMatch(/Nowhere/);
    });

    it('fails on an export whose type the entry point does not export', () => {
      // Found while converting: the check stops there, before the two above are looked for.
      const { status, output } = check(
        '/** A shape. */\ninterface Hidden {\n  readonly a: number;\n}\n/** Made of a hidden shape. */\nexport const shown: Hidden = { a: 1 };\n',
      );
      expect(status).not.toBe(0);
      expect(output).toMatch(/Hidden.*is referenced by shown but not included in the documentation/);
    });
  });
});
