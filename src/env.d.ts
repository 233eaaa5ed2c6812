/** The API base this server forwards to, or '' when it embeds the simulator (set by vite.config.ts). */
declare const __API_TARGET__: string;
