import type { Projection } from './runtime/projection.ts';
import { tradesProjection } from './trades/projection.ts';

/** Every read model the projector keeps live, in the order a batch applies them. Filled by the read-model folders. */
export const allProjections: Projection[] = [tradesProjection];
