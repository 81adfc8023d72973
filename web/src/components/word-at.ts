/**
 * The word of a segment's text under a point (a click), found from the caret position there: the
 * text is drawn as plain text, not one element per word, so a long transcript stays light.
 * `char` is where the caret falls in the visible text, for an editor opened at that place.
 */
export function wordAt(container: HTMLElement, x: number, y: number): { word: number; char: number } | null {
  const caret = caretAt(x, y);
  if (!caret || !container.contains(caret.node) || caret.node.nodeType !== Node.TEXT_NODE) return null;
  let before = '';
  const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    const hidden = text.parentElement?.closest('.visually-hidden') !== null;
    if (text === caret.node) {
      if (!hidden) before += (text.textContent ?? '').slice(0, caret.offset);
      break;
    }
    if (!hidden) before += text.textContent ?? '';
  }
  const tokens = before.split(/\s+/).filter((token) => token !== '');
  const word = /\s$/.test(before) || tokens.length === 0 ? tokens.length : tokens.length - 1;
  return { word, char: before.length };
}

function caretAt(x: number, y: number): { node: Node; offset: number } | null {
  const position = document.caretPositionFromPoint?.(x, y);
  if (position) return { node: position.offsetNode, offset: position.offset };
  const range = document.caretRangeFromPoint?.(x, y);
  return range ? { node: range.startContainer, offset: range.startOffset } : null;
}
