// What format: checksummed costs per request in API key mode: the handler's authenticateNow for
// a valid key and for a wrong one, with format any and checksummed, in one process, alternating
// rounds (the median of 7 rounds of 200 000 calls each). No HTTP: the difference is the check alone.
//
//   pnpm --filter @authlayer/bench api-key-format
import { createApiKeyHandler, newChecksummedKey } from '@authlayer/api-key';
import { parseAuthConfig } from '@authlayer/core';

const CALLS = 200_000;
const ROUNDS = 7;
const key = newChecksummedKey('sk_live');
const wrong = newChecksummedKey('sk_live');
const typo = `${key.slice(0, 20)}${key[20] === 'x' ? 'y' : 'x'}${key.slice(21)}`;
const logger = { info() {}, warn() {}, error() {} };
const handlerFor = (format) =>
  createApiKeyHandler(
    parseAuthConfig({ auth: { api_keys: { format, keys: [{ name: 'billing', env_var: 'KEY' }] } } }),
    { env: { KEY: key }, logger },
  );
const handlers = { any: await handlerFor('any'), checksummed: await handlerFor('checksummed') };

function time(handler, presented) {
  const request = { headers: { 'x-api-key': presented } };
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) {
    try {
      handler.authenticateNow(request);
    } catch {
      // a refusal is an answer too
    }
  }
  return Number(process.hrtime.bigint() - start) / CALLS;
}

const cases = { 'valid key': key, 'wrong key, right shape': wrong, 'one character changed': typo };
const samples = {};
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, presented] of Object.entries(cases)) {
    for (const format of round % 2 === 0 ? ['any', 'checksummed'] : ['checksummed', 'any']) {
      (samples[`${name}|${format}`] ??= []).push(time(handlers[format], presented));
    }
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.log(`Node.js ${process.version}, ${CALLS} calls × ${ROUNDS} rounds, median ns per call:`);
console.log('| presented | format: any | format: checksummed |');
console.log('|---|--:|--:|');
for (const name of Object.keys(cases)) {
  console.log(
    `| ${name} | ${median(samples[`${name}|any`]).toFixed(0)} | ${median(samples[`${name}|checksummed`]).toFixed(0)} |`,
  );
}
