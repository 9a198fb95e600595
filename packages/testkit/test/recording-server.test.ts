import { afterAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startRecordingServer } from '../src/index.js';

describe('startRecordingServer', () => {
  const started = startRecordingServer();
  afterAll(async () => (await started).close());

  it('records every request it receives', async () => {
    const server = await started;
    expect(server.requests).toEqual([]);
    await fetch(`${server.origin}/evil/jwks.json?x=1`);
    expect(server.requests).toEqual(['GET /evil/jwks.json?x=1']);
  });
});

describe('createCaptureLogger', () => {
  it('keeps every line with its level, in order', () => {
    const logger = createCaptureLogger();
    logger.info('one');
    logger.warn('two');
    logger.error('three');
    expect(logger.lines).toEqual([
      { level: 'info', message: 'one' },
      { level: 'warn', message: 'two' },
      { level: 'error', message: 'three' },
    ]);
  });
});
