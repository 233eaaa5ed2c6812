import { useEffect, useRef } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router-dom';
import { useWarnBeforeDroppingQueuedChanges } from '../api/locked-retry';
import { TimeZoneSwitch } from '../components/time-zone-switch';
import { apiTarget } from '../config/api-target';
import { paths } from '../config/paths';
import { useSessionStore } from '../features/session/session-store';
import { useTeamRole } from '../features/session/use-team-role';
import { WatchPanel } from '../features/watch/watch-panel';
import { useNow } from '../lib/use-now';
import { useHeadingFocus } from './use-heading-focus';
import { noticeText, useNotices, type Notice, type NoticeStore } from './notices';

/**
 * Several queries failing the same way (every read during an outage) make one line, not one each,
 * counting down to the soonest of their next tries.
 */
function onePerFault(list: readonly Notice[]): Notice[] {
  const byFault = new Map<string, Notice>();
  for (const notice of list) {
    const fault = `${notice.situation}:${notice.problem}`;
    const seen = byFault.get(fault);
    if (!seen || (notice.nextTry && (!seen.nextTry || notice.nextTry.at < seen.nextTry.at))) byFault.set(fault, notice);
  }
  return [...byFault.values()];
}

export function Shell({ notices }: { notices: NoticeStore }) {
  const session = useSessionStore();
  const { person, may } = useTeamRole();
  const list = onePerFault(useNotices(notices));
  const now = useNow(
    1_000,
    list.some((n) => n.nextTry !== null),
  );
  const { pathname } = useLocation();
  useHeadingFocus(pathname);
  // On a phone the links are a strip that scrolls sideways (layout.css): the current page's link is brought into it.
  const nav = useRef<HTMLElement>(null);
  useEffect(() => {
    const strip = nav.current;
    const current = strip?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!strip || !current || strip.scrollWidth <= strip.clientWidth) return;
    strip.scrollLeft = Math.max(0, current.offsetLeft - strip.offsetLeft - 8);
  }, [pathname]);
  useWarnBeforeDroppingQueuedChanges();

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to={paths.home()} className="brand">
          Ops Console
        </Link>
        <nav aria-label="Main" ref={nav}>
          <NavLink to={paths.home()} end>
            Projects
          </NavLink>
          <NavLink to={paths.activity()}>Activity</NavLink>
          <NavLink to={paths.insights()}>Insights</NavLink>
          {may('admin') && <NavLink to={paths.apiKeys()}>API keys</NavLink>}
          <NavLink to={paths.archive()}>History archive</NavLink>
          {may('admin') && <NavLink to={paths.notifications()}>Notifications</NavLink>}
          {person && may('admin') && <NavLink to={paths.audit()}>Audit trail</NavLink>}
        </nav>
        <span className="topbar__target muted" title="Where this console sends API requests">
          API: {apiTarget().label}
        </span>
        <TimeZoneSwitch />
        {person && (
          <span className="topbar__person" aria-label="Signed in as">
            {person.name} <span className="muted">({person.role ?? 'no role'})</span>
          </span>
        )}
        <button type="button" onClick={() => session.signOut('signed-out')}>
          Sign out
        </button>
      </header>
      <div className="notices" role="status" aria-live="polite">
        {list.map((n) => (
          <p key={n.id} className="notice">
            <span aria-hidden="true">⚠ </span>
            {noticeText(n, now)}
            {n.requestId && <span className="muted"> (request id {n.requestId})</span>}
          </p>
        ))}
      </div>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <WatchPanel />
    </div>
  );
}
