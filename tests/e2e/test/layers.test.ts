import { beforeAll, describe, expect, it } from '@jest/globals';
import { ESLint, type Linter } from 'eslint';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

// The rules `pnpm lint` applies (eslint.config.js), taken alone so that a planted file needs no
// TypeScript project: CONTRIBUTING.md's layers, each import that crosses one a lint error.
const root = fileURLToPath(new URL('../../..', import.meta.url));
let eslint: ESLint;
beforeAll(async () => {
  const config = (await import(`${root}/eslint.config.js`)) as { layerRules(): Linter.Config[] };
  eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...config.layerRules()],
  });
});

/** The messages of the layer rules for `code` planted at `path`. */
async function violations(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}/${path}` });
  return result!.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

describe('the import rules of the layers, in pnpm lint', () => {
  it.each([
    ['packages/engine/src/planted.ts', "import express from 'express';", /imports no web framework/],
    ['packages/engine/src/planted.ts', "import Fastify from 'fastify';", /imports no web framework/],
    ['packages/engine/src/planted.ts', "import { requestId } from '@authlayer/express';", /no adapter/],
    ['packages/express/src/planted.ts', "import { Redis } from 'ioredis';", /imports no Redis client/],
    ['packages/express/src/planted.ts', "import { RateLimiterMemory } from 'rate-limiter-flexible';", /no Redis/],
    ['packages/jwt/src/planted.ts', "import { createHandler } from '@authlayer/api-key';", /never on another mode/],
    ['packages/oauth2/src/planted.ts', "import { createHandler } from '@authlayer/jwt';", /never on another mode/],
    ['packages/api-key/src/planted.ts', "import { createEngine } from '@authlayer/engine/internal';", /the engine/],
    ['packages/core/src/planted.ts', "import { x } from '@authlayer/engine';", /lowest layer/],
  ])('%s: %s is refused', async (path, code, message) => {
    const found = await violations(path, code);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-restricted-imports: /);
    expect(found[0]).toMatch(message);
  });

  it.each([
    ['packages/engine/src/planted.ts', "import { Redis } from 'ioredis';"],
    ['packages/express/src/planted.ts', "import express from 'express';"],
    ['packages/express/src/planted.ts', "import { compileTable } from '@authlayer/engine/internal';"],
    ['packages/oauth2/src/planted.ts', "import { createModeSenderConstraint } from '@authlayer/sender-constraint';"],
    ['packages/jwt/test/planted.test.ts', "import { createHandler } from '@authlayer/api-key';"],
  ])('%s: %s is allowed', async (path, code) => {
    expect(await violations(path, code)).toEqual([]);
  });
});
