/** The two buttons of every in-place editor: submit the form, or leave it unchanged. */
export function SaveOrCancel({ onCancel, save = 'Save' }: { onCancel(): void; save?: string }) {
  return (
    <>
      <button type="submit" class="primary">
        {save}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </>
  );
}
