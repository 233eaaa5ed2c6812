import { codeModule } from '../../lib/code-module';

/** The project's timeline, out of the screen's own chunk: in the browser its code loads after the table is on screen. */
export const projectTimeline = codeModule('src/screens/project/project-timeline.tsx', async () => (await import('./project-timeline')).ProjectTimeline);
