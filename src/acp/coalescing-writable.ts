/**
 * A WritableStream over a Node stream that gathers every chunk written in one turn of the event
 * loop into a single `write` (one syscall instead of one per JSON-RPC frame when updates stream
 * fast). Order is preserved. `write` resolves at once unless the Node stream asked for backpressure,
 * in which case it waits for `drain`. Close flushes what is pending.
 */
export function coalescingWritable(output: NodeJS.WritableStream): WritableStream<Uint8Array> {
  let pending: Uint8Array[] = [];
  let scheduled = false;
  let drained: Promise<void> | undefined;

  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunks = pending;
    pending = [];
    const ok = output.write(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    if (!ok && !drained) {
      drained = new Promise((resolve) => output.once("drain", () => {
        drained = undefined;
        resolve();
      }));
    }
  };

  return new WritableStream<Uint8Array>({
    write(chunk) {
      pending.push(chunk);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return drained;
    },
    close() {
      flush();
      return drained;
    },
  });
}
