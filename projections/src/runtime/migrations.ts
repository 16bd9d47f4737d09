import type { MigrationSet } from '@oj/infra/db/database';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {};
