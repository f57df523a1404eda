/**
 * Background timers must not keep a Node process alive; browsers' timers are plain numbers
 * without `unref`, so the call is made only where it exists.
 */
export type Timer = ReturnType<typeof setTimeout>;

export function unrefTimer(timer: Timer): Timer {
  (timer as { unref?: () => unknown }).unref?.();
  return timer;
}
