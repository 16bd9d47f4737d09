import { useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import { ChartPixelRatio } from '@/components/charts/chart-pixel-ratio.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { CARD_COLORS, type CardColors, type CardTheme } from '../utils/card-theme.ts';
import { SHARE_IMAGE, openComposer } from '../utils/share-links.ts';
import { saveFile } from '@/lib/save-file.ts';
import '../share.css';

export const IMAGE_ERROR = 'Failed to generate or download image.';

export interface ShareModalProps {
  open: boolean;
  onClose: () => void;
  title: string;
  /** The post's text for Share. */
  shareText: string;
  /** The spec's message when sharing fails (part 2 §8), e.g. "Failed to share period income.". */
  shareError: string;
  /** The weekly and the heat-map cards cannot be shared as text (part 2 §2): Share is disabled. */
  shareDisabled?: boolean;
  fileName: string;
  /** The card's content, drawn in the chosen theme's colours. */
  children: (colors: CardColors, theme: CardTheme) => ReactNode;
  defaultTheme?: CardTheme;
}

/** Renders the card to a PNG in the browser (modern-screenshot) and downloads it; nothing is uploaded. */
async function downloadPng(node: HTMLElement, fileName: string, background: string): Promise<void> {
  const { domToPng } = await import('modern-screenshot');
  // The card's own layout size, not its on-screen box: on a phone the card is shown scaled down to fit,
  // and the image must still be the card at scale 2.
  const url = await domToPng(node, { ...SHARE_IMAGE, width: node.offsetWidth, height: node.offsetHeight, backgroundColor: background });
  saveFile(url, fileName);
}

/**
 * The card's colours, and the console's surface and subtle-text variables set to the card's own, so what
 * a card holds in the console's colours (a chart's "No Data" box) follows the card's theme, not the
 * console's (QA: a bright box in the dark card of a journal without trades, and in its PNG).
 */
export function cardStyle(colors: CardColors): CSSProperties {
  return { background: colors.bg, color: colors.text, borderColor: colors.border, '--color-surface-2': colors.surface, '--color-text-subtle': colors.muted } as CSSProperties;
}

/**
 * The frame of every share card (part 2 §2 "Share modals"): the card, a dark/light switch, Share,
 * Download and Close. The card is a fixed-width element so the image is the same on a phone and a
 * desktop; on a narrow screen it scrolls sideways inside the dialog rather than reflowing.
 */
export function ShareModal({ open, onClose, title, shareText, shareError, shareDisabled = false, fileName, children, defaultTheme = 'dark' }: ShareModalProps) {
  const [theme, setTheme] = useState<CardTheme>(defaultTheme);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const cardRef = useRef<HTMLDivElement>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  const [fit, setFit] = useState<{ scale: number; height: number }>({ scale: 1, height: 0 });
  const colors = CARD_COLORS[theme];

  // A fixed-width card does not fit a phone: show it scaled to the dialog's width (a transform, so the
  // card's layout, its charts and its image are unchanged).
  useLayoutEffect(() => {
    const stage = stageRef.current;
    const card = cardRef.current;
    if (!open || !stage || !card) return;
    const measure = () => {
      const scale = Math.min(1, stage.clientWidth / card.offsetWidth);
      setFit((f) => (f.scale === scale && f.height === card.offsetHeight * scale ? f : { scale, height: card.offsetHeight * scale }));
    };
    const ro = new ResizeObserver(measure);
    ro.observe(stage);
    ro.observe(card);
    measure();
    return () => ro.disconnect();
  }, [open]);

  const share = () => {
    setError(null);
    try {
      if (!openComposer(shareText)) setError(shareError);
    } catch {
      setError(shareError);
    }
  };
  const download = async () => {
    setError(null);
    const node = cardRef.current;
    if (!node) return setError(IMAGE_ERROR);
    setBusy(true);
    try {
      await downloadPng(node, fileName, colors.bg);
    } catch {
      setError(IMAGE_ERROR);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      onClose={onClose}
      title={title}
      size="lg"
      className="share-modal"
      footer={
        <>
          <div className="share-theme" role="group" aria-label="Card theme">
            <button type="button" className={`share-theme-option${theme === 'light' ? ' is-active' : ''}`} aria-pressed={theme === 'light'} onClick={() => setTheme('light')}>
              <Icon name="sun" size={15} /> Light
            </button>
            <button type="button" className={`share-theme-option${theme === 'dark' ? ' is-active' : ''}`} aria-pressed={theme === 'dark'} onClick={() => setTheme('dark')}>
              <Icon name="moon" size={15} /> Dark
            </button>
          </div>
          <span className="share-spacer" />
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
          <Button variant="secondary" icon={<Icon name="share" size={16} />} onClick={share} disabled={shareDisabled} title={shareDisabled ? 'Sharing this card as a post is not available' : undefined}>
            Share
          </Button>
          <Button icon={<Icon name="image" size={16} />} onClick={() => void download()} loading={busy}>
            Download
          </Button>
        </>
      }
    >
      {error && (
        <Alert tone="danger" className="share-error">
          {error}
        </Alert>
      )}
      <div className={`share-stage${fit.scale < 1 ? ' is-scaled' : ''}`} ref={stageRef} style={fit.scale < 1 ? { height: fit.height } : undefined}>
        <div className="share-fit" style={fit.scale < 1 ? { transform: `scale(${fit.scale})` } : undefined}>
          <div
            ref={cardRef}
            className="share-card"
            data-card-theme={theme}
            data-testid="share-card"
            style={cardStyle(colors)}
          >
            {/* The charts draw at the image's scale, so the PNG has their detail, not a 1x canvas stretched. */}
            <ChartPixelRatio value={SHARE_IMAGE.scale}>{children(colors, theme)}</ChartPixelRatio>
            <div className="share-card-brand" style={{ color: colors.muted }}>
              <span className="share-card-mark" style={{ background: colors.accent }} aria-hidden="true" />
              Options Journal
            </div>
          </div>
        </div>
      </div>
    </Modal>
  );
}
