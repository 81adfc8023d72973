/**
 * Who does an action item and by when, as the Insights panel says it under the item: "Tom · by Fri,
 * Dec 11, 2026". Null when the item names neither. A due date is a calendar day (YYYY-MM-DD), shown
 * as that day wherever the reader is (read as local midnight, never shifted by a time zone).
 */
export function ownerAndDueWords(
  owner: string | null | undefined,
  dueDate: string | null | undefined,
): string | null {
  const due = dueDate && /^\d{4}-\d{2}-\d{2}$/.test(dueDate) ? new Date(`${dueDate}T00:00:00`) : null;
  const parts = [
    owner?.trim() || null,
    due && !Number.isNaN(due.getTime())
      ? `by ${due.toLocaleDateString('en', { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric' })}`
      : null,
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(' · ') : null;
}
