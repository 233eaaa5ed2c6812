import { templateDir } from './pglite-template';

// Vitest's global setup: the migrated PGlite folder the tests' stores are copied from, made once before any
// test asks for one (PGlite's first start takes 3–15 s of CPU here: no test's own time limit should pay it).
export default async function setup(): Promise<void> {
  await templateDir();
}
