// The floor app's build (bench/run.ts runs it after the console's): served by the console's server from dist/client/floor/.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: import.meta.dirname,
  base: '/floor/',
  plugins: [react()],
  build: { target: 'es2022', outDir: '../../dist/client/floor', emptyOutDir: true },
});
