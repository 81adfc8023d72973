/** Grey lines where a list is about to appear, so the page does not sit blank while it loads. */
export function Skeleton({ label, lines = 3 }: { label: string; lines?: number }) {
  return (
    <div role="status">
      <span class="visually-hidden">{label}</span>
      <ul class="skeleton" aria-hidden="true">
        {Array.from({ length: lines }, (_, index) => (
          <li key={index} />
        ))}
      </ul>
    </div>
  );
}
