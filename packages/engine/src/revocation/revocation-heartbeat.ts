/** What a heartbeat reports: Redis's answer, or that it gave none in time (`silent`). */
export interface HeartbeatListener<T> {
  answered(value: T): void;
  silent(): void;
}

/** A running heartbeat; `stop` ends it (its timers never keep the process alive). */
export interface Heartbeat {
  stop(): void;
}

/**
 * Asks `ask()` every `everyMs`, one question at a time: an answer reaches `answered`; a failure, or
 * no answer within `withinMs`, reaches `silent`. This is what tells a Redis that stopped answering
 * with its connection open (paused, frozen, a host gone quiet) from one that answers: ioredis sees
 * no error then. `ask` returning `null` skips the beat (the connection is down: its own events tell).
 */
export function startHeartbeat<T>(
  ask: () => Promise<T> | null,
  listener: HeartbeatListener<T>,
  everyMs: number,
  withinMs: number,
): Heartbeat {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const next = () => {
    if (!stopped) timer = setTimeout(() => void beat(), everyMs).unref();
  };
  const beat = async () => {
    const call = ask();
    if (call === null) return next();
    const answer = await answerWithin(call, withinMs);
    if (stopped) return;
    if (answer.answered) listener.answered(answer.value);
    else listener.silent();
    // A late question is waited for (its timeout ends it) before the next: never a pile of them.
    if (!answer.answered) await call.catch(() => undefined);
    next();
  };
  next();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

type Answer<T> = { answered: true; value: T } | { answered: false };

/**
 * `call`'s value if it settles within `ms`. The deadline looks once more after the poll phase
 * (setImmediate), so an answer that arrived while this process was busy past the deadline is
 * read, not taken for silence.
 */
function answerWithin<T>(call: Promise<T>, ms: number): Promise<Answer<T>> {
  return new Promise((resolve) => {
    let deadline: NodeJS.Timeout | undefined;
    call.then(
      (value) => {
        clearTimeout(deadline);
        resolve({ answered: true, value });
      },
      () => {
        clearTimeout(deadline);
        resolve({ answered: false });
      },
    );
    deadline = setTimeout(() => setImmediate(() => resolve({ answered: false })), ms).unref();
  });
}
