// Server rendering plugged into the page step (pages.ts): for a signed-in request of a screen the server
// renders, the screen's code to preload in the head, and its render (src/entry-server.tsx) through a
// transport of this request alone, carrying its session's key; for a signed-out one, the key screen. Production loads the built entry once;
// dev loads it through Vite on every page (ssrLoadModule), so an edit shows on the next reload.
import * as z from 'zod/mini';
import type * as EntryServerModule from '../../src/entry-server';
import type { RenderMemo } from '../../src/entry-server';
import type { PageRenderer } from './page';
import { serverTransport } from '../proxy/server-transport';
import { escapeAttribute } from './template';

export type EntryServer = Pick<typeof EntryServerModule, 'serverRenderedScreen' | 'renderScreen' | 'renderKeyScreen' | 'screenDataDeadlineMs'>;
export type ScreenName = NonNullable<ReturnType<EntryServer['serverRenderedScreen']>>;
/** What a page's head may preload the code of: a screen the server renders, or the key screen. */
export type PreloadedScreen = keyof typeof EntryServerModule.screenSources;
/** The key screen, rendered for a signed-out page: its code is preloaded like a screen's. */
export const KEY_SCREEN: PreloadedScreen = 'key';

/** A module loaded by Vite (dev), checked for what the server calls. */
export function asEntryServer(module: Record<string, unknown>): EntryServer {
  const { serverRenderedScreen, renderScreen, renderKeyScreen, screenDataDeadlineMs } = module;
  if (
    typeof serverRenderedScreen !== 'function' ||
    typeof renderScreen !== 'function' ||
    typeof renderKeyScreen !== 'function' ||
    typeof screenDataDeadlineMs !== 'function'
  ) {
    throw new Error('src/entry-server.tsx must export serverRenderedScreen, renderScreen, renderKeyScreen and screenDataDeadlineMs');
  }
  return module as unknown as EntryServer;
}

export interface PageRendererOptions {
  entry: () => Promise<EntryServer>;
  /** The `<link>` tags for a screen's code; none in dev (Vite serves modules as they are asked for). */
  headTags?: (screen: PreloadedScreen) => string;
  /** Renders reused for the same inputs (render-memo.ts); none in dev, where an edit shows on the next reload. */
  memo?: RenderMemo;
}

export function createPageRenderer({ entry, headTags = () => '', memo }: PageRendererOptions): PageRenderer {
  return async ({ url, session, data, fetchApi, fetchOwn, reactRenders }) => {
    const server = await entry();
    if (!session) {
      // Signed out, the key screen stands in for the page asked for.
      if (data.session.signedIn) return null;
      const location = data.signIn?.returnTo ?? url;
      return { headTags: headTags(KEY_SCREEN), render: (signal) => server.renderKeyScreen({ url: location, data, signal, renderSlot: reactRenders }) };
    }
    const screen = server.serverRenderedScreen(url, data.session);
    if (!screen) return null;
    const transport = serverTransport(fetchApi, session.key, fetchOwn && ((call) => fetchOwn(session, call)));
    const deadlineMs = server.screenDataDeadlineMs(url, data.session);
    return {
      headTags: headTags(screen),
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      render: (signal, dataDeadline) =>
        server.renderScreen({ url, session: data.session, transport, signal, dataDeadline, memo, renderSlot: reactRenders, apiUrl: data.apiUrl }),
    };
  };
}

const ManifestSchema = z.record(z.string(), z.object({ file: z.string(), imports: z.optional(z.array(z.string())), css: z.optional(z.array(z.string())) }));
export type ClientManifest = z.infer<typeof ManifestSchema>;

export function parseManifest(json: unknown): ClientManifest {
  return ManifestSchema.parse(json);
}

/**
 * Each screen's `<link>` tags from the client build's manifest: modulepreload for its chunks and every
 * chunk they import, stylesheets for their CSS, leaving out what index.html loads already. A screen the
 * manifest does not know is an error at start-up, not a page that silently loads slower.
 */
export function screenHeadTags(
  manifest: ClientManifest,
  template: string,
  sources: Readonly<Record<PreloadedScreen, readonly string[]>>,
): (screen: PreloadedScreen) => string {
  const tagsOf = (screenSources: readonly string[]): string => {
    for (const source of screenSources) if (!manifest[source]) throw new Error(`The client build's manifest has no ${source}`);
    const files = new Set<string>();
    const styles = new Set<string>();
    const visit = (key: string) => {
      const chunk = manifest[key];
      if (!chunk || files.has(chunk.file)) return;
      files.add(chunk.file);
      chunk.css?.forEach((file) => styles.add(file));
      chunk.imports?.forEach(visit);
    };
    screenSources.forEach(visit);
    const fresh = (file: string) => !template.includes(`/${file}"`);
    return [
      ...[...styles].filter(fresh).map((file) => `<link rel="stylesheet" crossorigin href="/${escapeAttribute(file)}">`),
      ...[...files].filter(fresh).map((file) => `<link rel="modulepreload" crossorigin href="/${escapeAttribute(file)}">`),
    ].join('');
  };
  const tags = new Map(Object.entries(sources).map(([screen, source]) => [screen, tagsOf(source)]));
  return (screen) => tags.get(screen) ?? '';
}
