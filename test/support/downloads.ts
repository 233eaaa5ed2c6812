import { vi } from 'vitest';

export interface Download {
  name: string;
  type: string;
  text: string;
}

/**
 * jsdom neither makes blob URLs nor downloads: keeps each Blob a link would have saved, and returns
 * the list the files land in (call in beforeEach; `vi.restoreAllMocks()` undoes it).
 */
export function catchDownloads(): Promise<Download>[] {
  const downloads: Promise<Download>[] = [];
  const blobs = new Map<string, Blob>();
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    const url = `blob:test/${blobs.size}`;
    blobs.set(url, blob as Blob);
    return url;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    const blob = blobs.get(this.href);
    if (!blob) throw new Error(`no blob behind ${this.href}`);
    downloads.push(blob.text().then((text) => ({ name: this.download, type: blob.type, text })));
  });
  return downloads;
}
