/**
 * Gives the event loop one turn (what is waiting — a message, an IndexedDB answer — runs first),
 * then resolves. A posted message, not a 0 ms timer: browsers clamp a chain of nested timers to
 * 4 ms each, which a long piece of work cut into 8 ms slices pays a hundred times over.
 * Not scheduler.yield(): its continuation runs before other waiting tasks, the opposite of the point.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      channel.port2.close();
      resolve();
    };
    channel.port2.postMessage(undefined);
  });
}
