import { useLayoutEffect, useRef, useState } from 'react';
import { formatMoney, formatMoneyShort, formatMoneyWhole } from '@/lib/format.ts';

/**
 * An amount that keeps to its box: the exact value ("$3,580,246.01") where it fits, abbreviated with K and
 * M ("$3.58M", part 1 §9) where the box is too narrow for it, and to the whole dollar ("-$580") where even
 * that does not fit (QA: "-$580.00" has no shorter K form, and showed as "-$580.…" at 1280 px). Shortened,
 * the exact value stays in the tooltip and in the text a screen reader reads.
 */
export function FitMoney({ value }: { value: number }) {
  const ref = useRef<HTMLSpanElement>(null);
  const full = formatMoney(value);
  const forms = [...new Set([full, formatMoneyShort(value), formatMoneyWhole(value)])];
  const key = forms.join('|');
  const [shown, setShown] = useState(full);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box || forms.length === 1) return setShown(full);
    // The box is a block as wide as its cell, so its width does not follow the text it shows: measuring each
    // form in a probe inside it (same font) says which is the first that fits, without a loop between them.
    // Every form has its probe before any is measured, so the page is laid out once per amount, not once
    // per form (a heavy dashboard's first render spent 40 ms laying it out again and again).
    const measure = () => {
      const probes = forms.map((text) => {
        const probe = document.createElement('span');
        probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap;left:0;top:0';
        probe.textContent = text;
        return box.appendChild(probe);
      });
      const room = box.clientWidth + 0.5;
      const fits = probes.map((probe) => probe.getBoundingClientRect().width <= room);
      for (const probe of probes) probe.remove();
      setShown(forms[fits.indexOf(true)] ?? forms.at(-1)!);
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(box);
    return () => ro.disconnect();
    // `key` stands for `forms`, a new array each render with the same contents.
  }, [key]);
  const tight = shown !== full;
  return (
    <span ref={ref} className="dash-fit" title={tight ? full : undefined}>
      {tight ? (
        <>
          <span aria-hidden="true">{shown}</span>
          <span className="visually-hidden">{full}</span>
        </>
      ) : (
        full
      )}
    </span>
  );
}
