/**
 * Saves text as a file the way a browser downloads one (a Blob behind a link with `download`): the
 * browser host's browser and the desktop app's window both take it to their own download handling.
 * CSV gets a byte-order mark, without which spreadsheet programs read UTF-8 (a task title in any
 * language) as Latin-1.
 */
export function downloadTextFile(fileName: string, text: string, type: 'text/csv'): void {
  const blob = new Blob(['\uFEFF', text], { type: `${type};charset=utf-8` });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by now; a minute is ample for a slow disk.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
