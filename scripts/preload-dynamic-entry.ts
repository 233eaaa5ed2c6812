import type { HtmlTagDescriptor, Plugin, Rollup } from 'vite';

/**
 * `src/main.tsx` starts a deep link's requests first and only then imports the app (`import()`), so
 * the requests do not wait for React to evaluate. Vite preloads only static imports from
 * index.html; this adds `modulepreload` links for that dynamically imported module and everything
 * it imports, so its download still starts with the HTML instead of after main.tsx has run.
 */
export function preloadDynamicEntry(moduleId: string): Plugin {
  return {
    name: 'ops-console:preload-dynamic-entry',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx): HtmlTagDescriptor[] {
        const bundle = ctx.bundle;
        if (!bundle) return [];
        const chunks = Object.values(bundle).filter((item): item is Rollup.OutputChunk => item.type === 'chunk');
        const chunk = chunks.find((c) => c.isDynamicEntry && c.facadeModuleId?.replaceAll('\\', '/').endsWith(`/${moduleId}`));
        if (!chunk) throw new Error(`preload-dynamic-entry: no chunk is the dynamic import of ${moduleId}`);
        const files = [chunk.fileName, ...staticImports(bundle, chunk.fileName)];
        return files
          .filter((file) => !html.includes(`/${file}"`))
          .map((file) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` }, injectTo: 'head' }));
      },
    },
  };
}

/** Every chunk `fileName` imports statically, transitively. */
function staticImports(bundle: Rollup.OutputBundle, fileName: string, seen = new Set<string>()): string[] {
  const chunk = bundle[fileName];
  if (chunk?.type !== 'chunk') return [];
  for (const dependency of chunk.imports) {
    if (seen.has(dependency)) continue;
    seen.add(dependency);
    staticImports(bundle, dependency, seen);
  }
  return [...seen];
}
