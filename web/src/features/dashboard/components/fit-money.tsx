import { useLayoutEffect, useRef, useState } from 'react';
import { formatMoney, formatMoneyShort } from '@/lib/format.ts';

/**
 * An amount that keeps to its box: the exact value ("$3,580,246.01") where it fits, abbreviated with K and
 * M ("$3.58M", part 1 §9) where the box is too narrow for it. Abbreviated, the exact value stays in the
 * tooltip and in the text a screen reader reads.
 */
export function FitMoney({ value }: { value: number }) {
  const ref = useRef<HTMLSpanElement>(null);
  const [tight, setTight] = useState(false);
  const full = formatMoney(value);
  const short = formatMoneyShort(value);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box || full === short) return setTight(false);
    // The box is a block as wide as its cell, so its width does not follow the text it shows: measuring the
    // exact text in a probe inside it (same font) says whether it fits, without a loop between the two forms.
    const measure = () => {
      const probe = document.createElement('span');
      probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap;left:0;top:0';
      probe.textContent = full;
      box.appendChild(probe);
      const needed = probe.getBoundingClientRect().width;
      probe.remove();
      setTight(needed > box.clientWidth + 0.5);
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(box);
    return () => ro.disconnect();
  }, [full, short]);
  return (
    <span ref={ref} className="dash-fit" title={tight ? full : undefined}>
      {tight ? (
        <>
          <span aria-hidden="true">{short}</span>
          <span className="visually-hidden">{full}</span>
        </>
      ) : (
        full
      )}
    </span>
  );
}
