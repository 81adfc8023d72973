import type { ComponentChildren } from 'preact';
import type { Action } from '../action.ts';
import { ActionFeedback } from './action-feedback.tsx';

/**
 * A button that calls the API: disabled and relabelled while the call runs ("Saving…"), and the
 * failure, or the permission it needs, shown beside it, where the person is looking, not at the top
 * of the page.
 */
export function ActionButton({
  action,
  pendingLabel,
  children,
  class: className,
  describedBy,
}: {
  action: Action<[]>;
  pendingLabel: string;
  children: ComponentChildren;
  class?: string;
  describedBy?: string;
}) {
  return (
    <span class="action">
      <button
        type="button"
        class={className}
        onClick={() => void action.run()}
        disabled={action.pending}
        aria-busy={action.pending}
        aria-describedby={describedBy}
      >
        {action.pending ? pendingLabel : children}
      </button>
      <ActionFeedback action={action} />
    </span>
  );
}
