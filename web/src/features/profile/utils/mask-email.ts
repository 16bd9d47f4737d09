/** j•••••@example.com: the profile shows the address masked until the user asks to see it (at most 8 dots, so a long address does not wrap). */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}${'•'.repeat(Math.min(8, Math.max(3, local.length - 1)))}@${domain}`;
}
