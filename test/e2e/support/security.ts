import type { BrowserContext, Page, Request } from '@playwright/test';

// Records everything a browser session exposes (requests, console, storages, the page itself) so a
// test can ask where a secret turned up. docs/session-and-security.md: the key is posted once to the console's server and
// rests there; the page never holds it.

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** One place a secret could be, with its contents as text. */
export interface Place {
  where: string;
  text: string;
}

/** What the page holds at one moment, read from inside it. */
interface PageState {
  url: string;
  title: string;
  visibleText: string;
  historyState: string;
  historyLength: number;
  localStorage: [string, string][];
  sessionStorage: [string, string][];
  indexedDb: string;
  cacheStorage: string;
  documentCookie: string;
}

async function readRequest(request: Request): Promise<RecordedRequest> {
  let headers: Record<string, string>;
  try {
    headers = await request.allHeaders();
  } catch {
    headers = request.headers();
  }
  return { method: request.method(), url: request.url(), headers, body: request.postData() ?? '' };
}

/** The forms a secret could be written in without being spelled out verbatim. */
export function encodingsOf(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64url')])];
}

export function placesHolding(places: readonly Place[], secret: string): string[] {
  const forms = encodingsOf(secret);
  return places.filter((place) => forms.some((form) => place.text.includes(form))).map((place) => place.where);
}

export class SessionRecorder {
  private readonly pending: Promise<RecordedRequest>[] = [];
  readonly console: string[] = [];
  readonly downloads: Place[] = [];
  /** Every URL any frame showed, so a key that flashed through the address bar is caught too. */
  readonly navigations: string[] = [];

  constructor(context: BrowserContext) {
    context.on('request', (request) => this.pending.push(readRequest(request)));
    context.on('page', (page) => this.watchPage(page));
    for (const page of context.pages()) this.watchPage(page);
  }

  private watchPage(page: Page): void {
    page.on('console', (message) => this.console.push(`[${message.type()}] ${message.text()} ${JSON.stringify(message.location())}`));
    page.on('pageerror', (error) => this.console.push(`[pageerror] ${error.message}\n${error.stack ?? ''}`));
    page.on('framenavigated', (frame) => this.navigations.push(frame.url()));
  }

  async requests(): Promise<RecordedRequest[]> {
    return Promise.all(this.pending);
  }

  /**
   * Every place a request, the console or a download exposed: the URL, each header but
   * Authorization, and the body. Authorization headers come back separately.
   */
  async trafficPlaces(): Promise<{ places: Place[]; authorizations: string[] }> {
    const places: Place[] = [];
    const authorizations: string[] = [];
    for (const [i, request] of (await this.requests()).entries()) {
      const label = `request #${i} ${request.method} ${request.url}`;
      places.push({ where: `${label}: URL`, text: request.url });
      places.push({ where: `${label}: body`, text: request.body });
      for (const [name, value] of Object.entries(request.headers)) {
        if (name.toLowerCase() === 'authorization') authorizations.push(value);
        else places.push({ where: `${label}: header ${name}`, text: value });
      }
    }
    for (const [i, line] of this.console.entries()) places.push({ where: `console #${i}: ${line.slice(0, 80)}`, text: line });
    for (const [i, url] of this.navigations.entries()) places.push({ where: `navigation #${i}: ${url}`, text: url });
    places.push(...this.downloads);
    return { places, authorizations };
  }
}

/** Reads everything the page holds right now: URL, title, text, DOM, history, storages, IndexedDB, caches, cookies. */
export async function pagePlaces(page: Page, moment: string): Promise<{ places: Place[]; state: PageState }> {
  const state = await page.evaluate(async (): Promise<PageState> => {
    const entries = (storage: Storage): [string, string][] =>
      Array.from({ length: storage.length }, (_, i) => {
        const name = storage.key(i) ?? '';
        return [name, storage.getItem(name) ?? ''];
      });
    const dumpIndexedDb = async (): Promise<string> => {
      const dump: Record<string, Record<string, unknown[]>> = {};
      for (const info of await indexedDB.databases()) {
        if (!info.name) continue;
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open(info.name!);
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(new Error(open.error?.message ?? 'open failed'));
        });
        const stores: Record<string, unknown[]> = {};
        for (const storeName of Array.from(db.objectStoreNames)) {
          stores[storeName] = await new Promise<unknown[]>((resolve, reject) => {
            const read = db.transaction(storeName, 'readonly').objectStore(storeName).getAll();
            read.onsuccess = () => resolve(read.result);
            read.onerror = () => reject(new Error(read.error?.message ?? 'read failed'));
          });
        }
        db.close();
        dump[info.name] = stores;
      }
      return JSON.stringify(dump);
    };
    const dumpCaches = async (): Promise<string> => {
      if (!('caches' in window)) return '';
      const dump: Record<string, string[]> = {};
      for (const name of await caches.keys()) dump[name] = (await (await caches.open(name)).keys()).map((r) => r.url);
      return JSON.stringify(dump);
    };
    let historyState: string;
    try {
      // JSON.stringify(undefined) is undefined, whatever its type says.
      const state: unknown = window.history.state;
      historyState = state === undefined ? 'undefined' : JSON.stringify(state);
    } catch {
      historyState = String(window.history.state);
    }
    return {
      url: window.location.href,
      title: document.title,
      visibleText: document.body.innerText,
      historyState,
      historyLength: window.history.length,
      localStorage: entries(window.localStorage),
      sessionStorage: entries(window.sessionStorage),
      indexedDb: await dumpIndexedDb(),
      cacheStorage: await dumpCaches(),
      documentCookie: document.cookie,
    };
  });
  const cookies = await page.context().cookies();
  const at = (what: string) => `${moment}: ${what}`;
  const places: Place[] = [
    { where: at('URL'), text: state.url },
    { where: at('page URL (Playwright)'), text: page.url() },
    { where: at('document title'), text: state.title },
    { where: at('visible text'), text: state.visibleText },
    { where: at('DOM'), text: await page.content() },
    { where: at('history.state'), text: state.historyState },
    { where: at('IndexedDB'), text: state.indexedDb },
    { where: at('Cache Storage'), text: state.cacheStorage },
    { where: at('document.cookie'), text: state.documentCookie },
    { where: at('cookies'), text: JSON.stringify(cookies) },
    ...state.localStorage.map(([name, value]) => ({ where: at(`localStorage ${name}`), text: `${name}=${value}` })),
    ...state.sessionStorage.map(([name, value]) => ({ where: at(`sessionStorage ${name}`), text: `${name}=${value}` })),
  ];
  return { places, state };
}
