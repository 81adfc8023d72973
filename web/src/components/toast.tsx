import { useEffect, useRef, useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import type { AnnounceOptions } from '../context.ts';

/** How long a message stays; one with Undo stays longer, to be reached. */
const SHOWN_MS = 6000;
const SHOWN_WITH_UNDO_MS = 10_000;

export interface ToastState {
  message: string;
  undo?: AnnounceOptions['undo'];
  /** What had the focus when the message came: it gets it back when the toast goes with it. */
  returnFocus: HTMLElement | null;
}

/**
 * The page's one live region. Always in the DOM (so screen readers hear every message); with an
 * undo, it holds an Undo button that says when it is working and why it failed. It goes by itself
 * after a while, but never while the pointer is over it or the focus in it (WCAG 2.2.1: time
 * enough to reach Undo); when the focus was in it, the focus goes back where it came from.
 */
export function Toast({ toast, onDone }: { toast: ToastState | null; onDone(): void }) {
  const box = useRef<HTMLDivElement>(null);
  const [held, setHeld] = useState({ hover: false, focus: false });
  const close = () => {
    const hadFocus = box.current?.contains(document.activeElement) ?? false;
    onDone();
    if (hadFocus) giveFocusBack(toast?.returnFocus ?? null);
  };
  const undo = useAction(async () => {
    await toast?.undo?.();
    close();
  });
  const paused = held.hover || held.focus;
  useEffect(() => {
    if (!toast || paused) return;
    const timer = setTimeout(close, toast.undo ? SHOWN_WITH_UNDO_MS : SHOWN_MS);
    return () => clearTimeout(timer);
    // A new message, or the toast let go, starts the whole time again.
  }, [toast, paused]);
  return (
    <div
      ref={box}
      class="toast"
      role="status"
      aria-live="polite"
      onMouseEnter={() => setHeld((now) => ({ ...now, hover: true }))}
      onMouseLeave={() => setHeld((now) => ({ ...now, hover: false }))}
      onFocusIn={() => setHeld((now) => ({ ...now, focus: true }))}
      onFocusOut={(event) => {
        if (!box.current?.contains(event.relatedTarget as Node | null))
          setHeld((now) => ({ ...now, focus: false }));
      }}
    >
      {toast && (
        <>
          <span>{undo.error ?? toast.message}</span>
          {toast.undo && (
            <button
              type="button"
              class="undo"
              onClick={() => void undo.run()}
              aria-disabled={undo.pending ? 'true' : undefined}
            >
              {undo.pending ? 'Undoing…' : 'Undo'}
            </button>
          )}
        </>
      )}
    </div>
  );
}

/** Back to the control the message came from, if it is still shown; else to the page's content. */
function giveFocusBack(to: HTMLElement | null): void {
  if (to?.isConnected && to.getClientRects().length > 0) to.focus();
  else document.getElementById('main')?.focus();
}
