import type { PermissionRequest } from '../action.ts';
import { permissionWords } from '../permission-words.ts';

/**
 * What became of an action, beside the control that started it: why it failed, or the permission
 * it needs, asked for right there in plain words; once given, the action carries on by itself.
 */
export function ActionFeedback({
  action,
}: {
  action: { permission: PermissionRequest | null; error: string | null };
}) {
  const { permission, error } = action;
  if (permission) {
    return (
      <span role="alert" class="permission inline">
        <span>
          This needs your permission to {permissionWords(permission.missing)}, which you have not given yet.
          {permission.asking && (
            <>
              {' '}
              In the window that opened, sign in if asked, check that “{permissionWords(permission.missing)}”
              is ticked, and press Allow.
            </>
          )}
        </span>{' '}
        <button
          type="button"
          class="primary"
          onClick={() => {
            if (!permission.asking) void permission.allow();
          }}
          // Not `disabled`: the focus stays on it while the consent window is open.
          aria-disabled={permission.asking ? 'true' : undefined}
        >
          {permission.asking ? 'Waiting for your answer…' : 'Give permission and continue'}
        </button>{' '}
        <button type="button" class="quiet" onClick={permission.dismiss}>
          {permission.asking ? 'Cancel' : 'Not now'}
        </button>
      </span>
    );
  }
  if (!error) return null;
  return (
    <span role="alert" class="error inline">
      {error}
    </span>
  );
}
