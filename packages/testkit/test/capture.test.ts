import { describe, expect, it } from '@jest/globals';
import { captureLogLines, createCaptureLogger } from '../src/index.js';

describe('createCaptureLogger', () => {
  it('keeps every line, and waitFor finds a line already kept or still to come', async () => {
    const logger = createCaptureLogger();
    logger.info('one');
    await expect(logger.waitFor(/^info: one$/)).resolves.toBe('info: one');
    const later = logger.waitFor(/^error: three$/);
    logger.warn('two');
    logger.error('three');
    await expect(later).resolves.toBe('error: three');
    expect(logger.text).toEqual(['info: one', 'warn: two', 'error: three']);
  });
});

describe('captureLogLines', () => {
  it('splits what a logger writes into lines and parses each as JSON', () => {
    const capture = captureLogLines();
    capture.destination.write('{"msg":"a"}\n{"msg":"b"}\n');
    capture.destination.write('{"msg":"c"}\n');
    expect(capture.lines).toEqual(['{"msg":"a"}', '{"msg":"b"}', '{"msg":"c"}']);
    expect(capture.records()).toEqual([{ msg: 'a' }, { msg: 'b' }, { msg: 'c' }]);
  });

  it('throws on a line that is not JSON', () => {
    const capture = captureLogLines();
    capture.destination.write('plain text\n');
    expect(() => capture.records()).toThrow(SyntaxError);
  });
});
