import { useAction } from '../action.ts';
import type { AnnounceOptions } from '../context.ts';

export interface ToastState {
  message: string;
  undo?: AnnounceOptions['undo'];
}

/**
 * The page's one live region. Always in the DOM (so screen readers hear every message); with an
 * undo, it holds an Undo button that says when it is working and why it failed.
 */
export function Toast({ toast, onDone }: { toast: ToastState | null; onDone(): void }) {
  const undo = useAction(async () => {
    await toast?.undo?.();
    onDone();
  });
  return (
    <div class="toast" role="status" aria-live="polite">
      {toast && (
        <>
          <span>{undo.error ?? toast.message}</span>
          {toast.undo && (
            <button type="button" class="undo" onClick={() => void undo.run()} disabled={undo.pending}>
              {undo.pending ? 'Undoing…' : 'Undo'}
            </button>
          )}
        </>
      )}
    </div>
  );
}
