import { hash, verify, type Algorithm } from '@node-rs/argon2';

// argon2id (the library's const enum value 2: const enums cannot be imported under type stripping)
// with the OWASP-recommended floor: 19 MiB, 2 passes, 1 lane.
const ARGON2ID = 2 as Algorithm;
const options = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export const hashPassword = (password: string): Promise<string> => hash(password, options);

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * A hash of a random password, verified against when the e-mail is unknown so that a failed sign-in
 * takes as long for a missing account as for a wrong password (no account enumeration by timing).
 */
let dummy: Promise<string> | undefined;
export const dummyPasswordHash = (): Promise<string> => (dummy ??= hashPassword(`dummy-${Math.random()}`));
