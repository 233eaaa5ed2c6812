import { defineConfig } from '@playwright/test';
import base from './playwright.config';

// README pictures: same server and browser as the browser tests, but not part of `npm test`,
// because they rewrite the committed PNGs in docs/screenshots.
export default defineConfig({ ...base, testDir: 'test/screenshots', reporter: 'list' });
