import { lazy, type ComponentType } from 'react';

/** Code that loads on demand, remembered once in so what it holds can be used without waiting. */
export interface CodeModule<T> {
  /** The source file, as the build's manifest names it (the server preloads its chunks). */
  readonly source: string;
  /** What the code exports, once it has arrived. */
  readonly loaded: T | undefined;
  /** Loads the code (once; a failed load may be tried again). */
  load: () => Promise<T>;
}

export function codeModule<T>(source: string, importCode: () => Promise<T>): CodeModule<T> {
  let loaded: T | undefined;
  return {
    source,
    get loaded() {
      return loaded;
    },
    load: async () => (loaded ??= await importCode()),
  };
}

/**
 * A component whose code loads on demand: rendered synchronously once its code is in, through
 * `lazy` (and the nearest Suspense boundary) until then. A page that brought its HTML from the server
 * loads the code before the browser takes the page over (main.tsx), so that HTML is taken over as it
 * is: a part still waiting for its code when anything above it changes would be thrown away and drawn
 * again, and the page would jump under the pointer.
 */
export function lazyComponent<P extends object>(module: CodeModule<ComponentType<P>>): ComponentType<P> {
  const Lazy = lazy(async () => ({ default: await module.load() }));
  return function LazyComponent(props: P) {
    const Loaded = module.loaded;
    return Loaded ? <Loaded {...props} /> : <Lazy {...props} />;
  };
}
