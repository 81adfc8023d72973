import type { ComponentChildren } from 'preact';
import type { Action } from '../action.ts';
import { ActionFeedback } from './action-feedback.tsx';

/**
 * A button that calls the API: relabelled while the call runs ("Saving…"), and the failure, or the
 * permission it needs, shown beside it, where the person is looking, not at the top of the page.
 * While pending it is `aria-disabled`, not `disabled`: a disabled button loses the keyboard focus
 * (it drops to the page's body), and a second press is ignored by the action anyway. `working`
 * keeps the same button, pending, while a job the action started runs on (Generate → Generating…).
 */
export function ActionButton({
  action,
  pendingLabel,
  working,
  children,
  class: className,
  describedBy,
}: {
  action: Action<[]>;
  pendingLabel: string;
  /** A label shown while work started by the action goes on after the call (clicks ignored). */
  working?: string | null;
  children: ComponentChildren;
  class?: string;
  describedBy?: string;
}) {
  const busy = action.pending || Boolean(working);
  return (
    <span class="action">
      <button
        type="button"
        class={className}
        onClick={() => {
          if (!busy) void action.run();
        }}
        aria-disabled={busy ? 'true' : undefined}
        aria-busy={busy}
        aria-describedby={describedBy}
      >
        {action.pending ? pendingLabel : working || children}
      </button>
      <ActionFeedback action={action} />
    </span>
  );
}
