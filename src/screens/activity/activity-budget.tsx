import { useId } from 'react';
import { knownProjects, type ActivityFeed } from '../../api/activity-feed';
import { BUDGET_CHOICES, effectiveBudget, isSlowedDown, sentInLastMinute } from '../../lib/activity-scheduler';
import { formatPast } from '../../lib/format';
import { oldestCheck } from './activity-rows';

interface ActivityBudgetProps {
  feed: ActivityFeed | undefined;
  budgetPerMinute: number;
  onBudgetChange: (perMinute: number) => void;
  now: number;
}

/** The budget control, what the view spends now, how stale its least recently checked project is, and any 429 slow-down. */
export function ActivityBudget({ feed, budgetPerMinute, onBudgetChange, now }: ActivityBudgetProps) {
  const id = useId();
  const choices = (BUDGET_CHOICES as readonly number[]).includes(budgetPerMinute) ? BUDGET_CHOICES : [...BUDGET_CHOICES, budgetPerMinute].sort((a, b) => a - b);
  const spent = feed ? sentInLastMinute(feed.sent, now).length : 0;
  const oldest = oldestCheck(feed);
  const slowDown = feed && isSlowedDown(feed.slowDown, now) ? feed.slowDown : null;
  const projects = knownProjects(feed).length;
  const staleness =
    oldest.unchecked > 0
      ? `${oldest.unchecked} of ${projects} projects not checked yet`
      : oldest.at !== null
        ? `oldest check ${formatPast(new Date(oldest.at).toISOString(), now)}`
        : '';
  return (
    <div className="activity-budget">
      <span className="interval-select">
        <label htmlFor={id}>Budget (requests a minute)</label>{' '}
        <select id={id} value={budgetPerMinute} onChange={(e) => onBudgetChange(Number(e.target.value))}>
          {choices.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </span>
      <span className="muted">
        Costs now: {spent} requests in the last minute · {projects} projects{staleness ? ` · ${staleness}` : ''}
      </span>
      <p role="status" className={slowDown ? 'notice' : 'visually-hidden'}>
        {slowDown &&
          `The API asked the console to slow down (429): checking at half the budget, ${effectiveBudget(budgetPerMinute, slowDown, now)} requests a minute, until ${new Date(slowDown.until).toLocaleTimeString()}.`}
      </p>
    </div>
  );
}
