/**
 * Copies text; falls back to execCommand('copy') where the async clipboard is not allowed (trackers
 * served over http). That fallback fires a 'copy' event the page can listen to, and a page reads
 * the selection of a textarea through getSelection(): so nothing real is selected (one space), the
 * text is handed over in our own listener at the event's target, inside the closed shadow root,
 * and the event goes no further.
 */
export async function copyText(text: string, root: Node = document.body): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = ' ';
    area.style.cssText = 'position:fixed;opacity:0;pointer-events:none;left:0;top:0';
    let copied = false;
    area.addEventListener('copy', (event) => {
      event.clipboardData?.setData('text/plain', text);
      event.preventDefault();
      event.stopImmediatePropagation();
      copied = true;
    });
    root.appendChild(area);
    area.select();
    try {
      document.execCommand('copy');
    } catch {
      copied = false;
    }
    area.remove();
    return copied;
  }
}
