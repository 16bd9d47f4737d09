import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Reading mails in tests (API and browser e2e): the body of an .eml or SMTP message is
 * quoted-printable, so links are only found after decoding.
 */
export function decodeQuotedPrintable(raw: string): string {
  const bytes = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Every http(s) link in a raw message, decoded, in order of appearance. */
export function linksInMail(raw: string): string[] {
  return [...new Set(decodeQuotedPrintable(raw).match(/https?:\/\/[^\s"<>]+/g) ?? [])];
}

/**
 * The newest .eml file in `<dataDir>/mail/` addressed to `to` (and, if given, whose decoded text contains
 * `containing`, e.g. '/users/password-reset-link'), or undefined. File names sort in delivery order.
 */
export async function latestMailFile(dataDir: string, to: string, containing?: string): Promise<{ file: string; raw: string; text: string; links: string[] } | undefined> {
  const dir = join(dataDir, 'mail');
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).sort().reverse();
  for (const file of files) {
    const raw = await readFile(join(dir, file), 'utf8');
    if (!new RegExp(`^To: ${to.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'mi').test(raw)) continue;
    const text = decodeQuotedPrintable(raw);
    if (containing === undefined || text.includes(containing)) return { file, raw, text, links: linksInMail(raw) };
  }
  return undefined;
}
