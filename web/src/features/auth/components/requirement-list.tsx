import { Icon } from '@/components/ui/icons.tsx';

/** A live list of the requirements a field does not meet yet (shown under the field). */
export function RequirementList({ items, id, label }: { items: string[]; id?: string; label: string }) {
  if (items.length === 0) return null;
  return (
    <ul className="checklist" id={id} aria-label={label} aria-live="polite">
      {items.map((item) => (
        <li key={item} className="unmet">
          <Icon name="x" size={14} />
          <span>{item}</span>
        </li>
      ))}
    </ul>
  );
}
