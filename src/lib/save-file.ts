/**
 * Hands a Blob to the browser as a download named `fileName`. A Blob and an <a download> need no
 * inline script and no request, so the page's CSP allows it.
 */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download holds its own reference by now; the next task is soon enough to let go of ours.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
