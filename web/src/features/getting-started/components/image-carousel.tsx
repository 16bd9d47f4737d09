import { useState } from 'react';
import { Icon } from '@/components/ui/icons.tsx';

export interface Slide {
  src: string | undefined;
  caption: string;
}

/** One picture at a time with previous/next buttons and dots; the caption names what it shows. */
export function ImageCarousel({ slides, label }: { slides: Slide[]; label: string }) {
  const [index, setIndex] = useState(0);
  const count = slides.length;
  const slide = slides[index];
  if (!slide) return null;
  const go = (i: number) => setIndex((i + count) % count);
  return (
    <figure className="carousel" role="group" aria-roledescription="carousel" aria-label={label}>
      <div className="carousel-frame">
        {slide.src ? (
          // The picture opens at full size in a tab of its own: on a phone the frame shrinks a desktop
          // screenshot to a third, too small to read (QA).
          <a className="carousel-full" href={slide.src} target="_blank" rel="noopener" aria-label={`${slide.caption} (open at full size)`}>
            <img src={slide.src} alt={slide.caption} loading="lazy" decoding="async" />
          </a>
        ) : (
          // Only when a shot listed in sections.ts has not been taken yet (npm run screenshots).
          <div className="carousel-missing">Screenshot not generated yet</div>
        )}
        {count > 1 && (
          <>
            <button type="button" className="carousel-nav carousel-prev" aria-label="Previous picture" onClick={() => go(index - 1)}>
              <Icon name="chevronLeft" />
            </button>
            <button type="button" className="carousel-nav carousel-next" aria-label="Next picture" onClick={() => go(index + 1)}>
              <Icon name="chevronRight" />
            </button>
          </>
        )}
      </div>
      <figcaption className="carousel-caption" aria-live="polite">
        <span>{slide.caption}</span>
        <span className="carousel-count">
          {index + 1} / {count}
        </span>
      </figcaption>
      {count > 1 && (
        <div className="carousel-dots">
          {slides.map((s, i) => (
            <button key={s.caption} type="button" className={`carousel-dot${i === index ? ' active' : ''}`} aria-label={`Picture ${i + 1}`} aria-current={i === index} onClick={() => go(i)} />
          ))}
        </div>
      )}
    </figure>
  );
}
