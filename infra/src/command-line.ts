/**
 * What `parseArgs` refused, in one line: each CLI answers a bad command line with this line and its
 * usage, never a stack trace (QA). Node's hint after an unknown option (put a positional that starts with
 * '-' after `--`) is left off: no command of the journal takes such a positional, so it only misleads.
 */
export function commandLineError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\. To specify a positional argument starting with a '-'.*$/s, '');
}
