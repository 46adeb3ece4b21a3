/**
 * After a button removed its own list item, the keyboard user stays where they were: focus moves to
 * the button now at that place (or the last one), else to `fallback` when the list is gone.
 */
export function refocusAfterRemoval(listId: string, index: number, fallbackId: string): void {
  // After the render that removed the item (Preact renders on a microtask; this runs later).
  setTimeout(() => {
    const buttons = document.getElementById(listId)?.querySelectorAll<HTMLButtonElement>('button');
    const target = buttons?.length ? buttons[Math.min(index, buttons.length - 1)] : document.getElementById(fallbackId);
    target?.focus();
  }, 0);
}
