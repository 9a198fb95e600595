import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { startHeartbeat, type Heartbeat } from '../src/revocation/revocation-heartbeat.js';

// The heartbeat that tells a silent Redis from one that answers, on a pinned clock: the test
// moves time and settles each question itself, so no beat depends on how busy the machine is.

const EVERY = 1_000;
const WITHIN = 250;

/** A question the test answers when it chooses. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('startHeartbeat', () => {
  let heartbeat: Heartbeat | undefined;
  const heard: string[] = [];
  const listener = {
    answered: (value: string) => void heard.push(`answered ${value}`),
    silent: () => void heard.push('silent'),
  };
  beforeEach(() => {
    jest.useFakeTimers();
    heard.length = 0;
  });
  afterEach(() => {
    heartbeat?.stop();
    jest.useRealTimers();
  });

  it('asks every period and reports each answer', async () => {
    let asked = 0;
    heartbeat = startHeartbeat(() => Promise.resolve(`pong ${(asked += 1)}`), listener, EVERY, WITHIN);
    expect(asked).toBe(0);
    await jest.advanceTimersByTimeAsync(EVERY);
    await jest.advanceTimersByTimeAsync(EVERY);
    expect(heard).toEqual(['answered pong 1', 'answered pong 2']);
  });

  it('a failed question is silence at once, without waiting for the deadline', async () => {
    heartbeat = startHeartbeat(() => Promise.reject(new Error('Connection is closed')), listener, EVERY, WITHIN);
    await jest.advanceTimersByTimeAsync(EVERY);
    expect(heard).toEqual(['silent']);
  });

  it('no answer in time is silence; the late question is waited for before the next, never a pile', async () => {
    const questions: ReturnType<typeof deferred<string>>[] = [];
    heartbeat = startHeartbeat(
      () => {
        questions.push(deferred<string>());
        return questions.at(-1)!.promise;
      },
      listener,
      EVERY,
      WITHIN,
    );
    await jest.advanceTimersByTimeAsync(EVERY + WITHIN + 1);
    expect(heard).toEqual(['silent']);
    await jest.advanceTimersByTimeAsync(EVERY * 5);
    expect(questions).toHaveLength(1);
    questions[0]!.resolve('late');
    await jest.advanceTimersByTimeAsync(EVERY);
    expect(questions).toHaveLength(2);
    questions[1]!.resolve('pong');
    await jest.advanceTimersByTimeAsync(0);
    expect(heard).toEqual(['silent', 'answered pong']);
  });

  it('a beat with no connection to ask is skipped: nothing reported, asked again next period', async () => {
    const answers: (Promise<string> | null)[] = [null, Promise.resolve('pong')];
    heartbeat = startHeartbeat(() => answers.shift() ?? null, listener, EVERY, WITHIN);
    await jest.advanceTimersByTimeAsync(EVERY);
    expect(heard).toEqual([]);
    await jest.advanceTimersByTimeAsync(EVERY);
    expect(heard).toEqual(['answered pong']);
  });

  it('stopped while a question is out: its answer is not reported, and no question follows', async () => {
    const question = deferred<string>();
    let asked = 0;
    heartbeat = startHeartbeat(
      () => {
        asked += 1;
        return question.promise;
      },
      listener,
      EVERY,
      WITHIN,
    );
    await jest.advanceTimersByTimeAsync(EVERY);
    heartbeat.stop();
    question.resolve('after stop');
    await jest.advanceTimersByTimeAsync(EVERY * 3);
    expect([asked, heard]).toEqual([1, []]);
  });

  it('stopped while a late question is waited for: no question follows it', async () => {
    const question = deferred<string>();
    let asked = 0;
    heartbeat = startHeartbeat(
      () => {
        asked += 1;
        return question.promise;
      },
      listener,
      EVERY,
      WITHIN,
    );
    await jest.advanceTimersByTimeAsync(EVERY + WITHIN + 1);
    expect(heard).toEqual(['silent']);
    heartbeat.stop();
    question.reject(new Error('Command timed out'));
    await jest.advanceTimersByTimeAsync(EVERY * 3);
    expect([asked, heard]).toEqual([1, ['silent']]);
  });

  it('stopped before the first beat: never asks', async () => {
    let asked = 0;
    heartbeat = startHeartbeat(() => Promise.resolve(String((asked += 1))), listener, EVERY, WITHIN);
    heartbeat.stop();
    await jest.advanceTimersByTimeAsync(EVERY * 3);
    expect(asked).toBe(0);
  });
});
