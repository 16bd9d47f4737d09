/** Placeholders (the trades console replaces them): the Add Open Trade and Add Closed Trade dialogs. */
export interface NewTradeDialogProps {
  open: boolean;
  onClose: () => void;
  /** 'YYYY-MM-DD' to preset the open date (the income calendar's day click). */
  initialDate?: string;
}

export function AddOpenTradeDialog(_props: NewTradeDialogProps) {
  return null;
}

export function AddClosedTradeDialog(_props: NewTradeDialogProps) {
  return null;
}
