/**
 * Hands the browser a file to save: `href` a data: or blob: URL, `name` the file's name. A blob: URL is
 * revoked once the download has had time to start.
 */
export function saveFile(href: string, name: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  if (href.startsWith('blob:')) setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
