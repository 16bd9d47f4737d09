/**
 * The card step: a card is typed into Stripe's own form (Stripe Elements, in Stripe's frames) and saved
 * through the SetupIntent whose client secret the server made. Production always uses Stripe Elements
 * (stripe-card-form.tsx). Stripe.js cannot load in an offline browser, so a browser test may put a card
 * step on `window.__ojCardStep` before the page loads: it stands in for Stripe.js only (it confirms the
 * SetupIntent at the tests' local Stripe server); every call of the page and the server stays real.
 */
export interface CardStepResult {
  setupIntent?: { status: string; payment_method: string | null };
  error?: { message: string };
}

export interface InjectedCardStep {
  confirm(clientSecret: string): Promise<CardStepResult>;
}

declare global {
  interface Window {
    __ojCardStep?: InjectedCardStep;
  }
}

export const injectedCardStep = (): InjectedCardStep | undefined => (typeof window === 'undefined' ? undefined : window.__ojCardStep);
