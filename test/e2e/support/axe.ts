import axe from 'axe-core';
import { expect, type Page } from '@playwright/test';

export interface SeriousViolation {
  rule: string;
  impact: string | null | undefined;
  help: string;
  where: string[];
}

/**
 * axe-core on the page as it is now (or on what `include` selects), in the page itself: its source evaluated once per
 * document, then `axe.run` asked for violations alone. Only what blocks or seriously hinders someone is returned. A
 * control's name must contain the text it shows (WCAG 2.5.3): axe keeps that rule experimental, so it is asked for.
 *
 * Not @axe-core/playwright's AxeBuilder: its analyze() opens a second page in the context to finish every run and
 * builds the passes and inapplicable results too, 2 s for a page of a hundred elements and 8 s for a project's table
 * on a quiet machine where this takes 0.3 s and 1.6 s; the rules, their version and the document checked are the same.
 */
export async function seriousViolations(page: Page, include?: string): Promise<SeriousViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(async (selector) => {
    const { axe } = window as unknown as { axe: typeof import('axe-core') };
    const { violations } = await axe.run(selector ?? document, {
      resultTypes: ['violations'],
      rules: { 'label-content-name-mismatch': { enabled: true } },
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ rule: v.id, impact: v.impact, help: v.help, where: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  }, include);
}

/** Nothing serious or critical on the page as it is now. */
export async function expectNoSeriousViolations(page: Page, include?: string): Promise<void> {
  expect(await seriousViolations(page, include)).toEqual([]);
}
