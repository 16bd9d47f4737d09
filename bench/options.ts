/** The value after `--name` in a bench's arguments (`npm run bench -- <bench> --runs 3`), or undefined. */
export const optionsOf =
  (argv: string[]) =>
  (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
