import type { MigrationSet } from '../db/database.ts';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {};
