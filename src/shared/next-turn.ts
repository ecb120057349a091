/** Resolves in a later turn of the event loop: after the immediates queued so far, and after I/O is polled. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
