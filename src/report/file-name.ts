/**
 * A name made safe to put in a file name or a Content-Disposition header: letters,
 * digits, `.`, `_` and `-` kept, anything else (a slash, a quote, a non-ASCII
 * letter) as `_`. Pure.
 */
export function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}
