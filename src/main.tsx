import { PAGE_DATA_ELEMENT_ID, parsePageData } from './api/page-data';
import { hydrateFromPage } from './api/rendered-queries';
import { createAppState } from './app/app-state';
import { holdEarlyClicks } from './app/early-clicks';
import { noteEarlyEdits } from './app/early-edits';
import { releaseHeldCode } from './app/held-code';
import { startEarly } from './app/early-start';
import { keyScreen } from './app/screen-modules';
import { setApiTarget } from './config/api-target';
import { openSessionChannel } from './features/session/session-channel';
import './styles.css';
// After the base styles: the layout across screen sizes overrides them.
import './layout.css';

// A rendered page's preloads, held until now so its rows painted first: fetched side by side from here on.
releaseHeldCode(document);

const root = document.getElementById('root');
if (root) {
  // What the server says about this page's session (never the key): a JSON block, not a script.
  const data = parsePageData(document.getElementById(PAGE_DATA_ELEMENT_ID)?.textContent);
  // Which API this console talks to, as its server says now (not as the build was made).
  setApiTarget(data.apiUrl);
  // A sign-in form posted without the script answers at /session: show the address it was posted from.
  if (data.signIn) window.history.replaceState(null, '', data.signIn.returnTo);
  const ended = data.sessionEnded;
  const state = createAppState({
    session: data.session,
    channel: openSessionChannel(),
    signInProblem: data.signIn?.problem,
    endedBecause: ended,
    live: data.live !== false,
  });
  // The API refused the key while the server rendered this page: signed out, as after any 401.
  if (ended === 'rejected') state.session.signOut('rejected');
  // A server-rendered page: the queries its HTML shows go into the cache before anything renders.
  const renderedAt = data.queries && data.renderedAt !== undefined && root.hasChildNodes() ? data.renderedAt : null;
  // Its buttons can be pressed, and its fields typed in, before React takes it over: kept for then.
  const clicks = renderedAt === null ? null : holdEarlyClicks(root);
  const edits = renderedAt === null ? null : noteEarlyEdits(root);
  if (data.queries && renderedAt !== null) hydrateFromPage(state.queryClient, data.queries);
  // A signed-in deep link's requests and screen code start now, not after React has evaluated (what
  // the server rendered with is fresh in the cache: only the screen's code is fetched then); signed out,
  // the key screen's code (preloaded by the server's page).
  const { pathname, search } = window.location;
  const screen = state.session.getState().signedIn ? startEarly(`${pathname}${search}`, state.queryClient, data.session.keyKind) : keyScreen.load();
  // Handled here too, so a failure before the app arrives is not reported as unhandled.
  void screen?.catch(() => undefined);
  import('./app/mount-app').then(
    ({ mountApp }) => mountApp(root, state, screen, renderedAt, clicks && edits ? { releaseClicks: clicks.release, replayEdits: edits.replay } : undefined),
    () => {
      const alert = document.createElement('p');
      alert.setAttribute('role', 'alert');
      alert.textContent = 'The console could not load its code. Check your connection and reload the page.';
      // Over a server-rendered page, the rows stay: the alert goes above them.
      // Nothing will take the held presses: the page's buttons stay as they are.
      clicks?.release();
      if (renderedAt === null) root.replaceChildren(alert);
      else root.prepend(alert);
    },
  );
}
