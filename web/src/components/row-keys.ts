/**
 * The keyboard inside the transcript: each segment is one Tab stop (a two-hour note would otherwise
 * cost thousands of Tab presses), its own controls (Play from, Edit, Speaker, Split, Merge) reached
 * with ← and →, the segments above and below with ↑ and ↓, and Escape back to the segment. The
 * controls are `tabIndex=-1`; Space and the letters stay the player's.
 */
export function moveInRow(event: KeyboardEvent, row: HTMLElement): boolean {
  const target = event.target;
  if (!(target instanceof HTMLElement)) return false;
  const controls = [...row.querySelectorAll<HTMLElement>('.segment-head button')];
  const at = controls.indexOf(target);
  if (target !== row && at < 0) return false;
  switch (event.key) {
    case 'ArrowRight':
      return focus(controls[at < 0 ? 0 : (at + 1) % controls.length]);
    case 'ArrowLeft':
      return focus(controls[at <= 0 ? controls.length - 1 : at - 1]);
    case 'ArrowDown':
      return focus(sibling(row, 'nextElementSibling'));
    case 'ArrowUp':
      return focus(sibling(row, 'previousElementSibling'));
    case 'Escape':
      return at >= 0 && focus(row);
    default:
      return false;
  }
}

function sibling(row: HTMLElement, way: 'nextElementSibling' | 'previousElementSibling'): HTMLElement | null {
  const next = row[way];
  return next instanceof HTMLElement ? next : null;
}

function focus(element: HTMLElement | null | undefined): boolean {
  if (!element) return false;
  element.focus();
  return true;
}
