import { PAGE_DATA_ELEMENT_ID, parsePageData } from './api/page-data';
import { createAppState } from './app/app-state';
import { startEarly } from './app/early-start';
import { openSessionChannel } from './features/session/session-channel';
import './styles.css';

const root = document.getElementById('root');
if (root) {
  // What the server says about this page's session (never the key): a JSON block, not a script.
  const data = parsePageData(document.getElementById(PAGE_DATA_ELEMENT_ID)?.textContent);
  // A sign-in form posted without the script answers at /session: show the address it was posted from.
  if (data.signIn) window.history.replaceState(null, '', data.signIn.returnTo);
  const state = createAppState({ session: data.session, channel: openSessionChannel(), signInProblem: data.signIn?.problem });
  // A signed-in deep link's requests and screen code start now, not after React has evaluated.
  const screen = data.session.signedIn ? startEarly(window.location.pathname, state.queryClient) : null;
  // Handled here too, so a failure before the app arrives is not reported as unhandled.
  void screen?.catch(() => undefined);
  import('./app/mount-app').then(
    ({ mountApp }) => mountApp(root, state, screen),
    () => {
      const alert = document.createElement('p');
      alert.setAttribute('role', 'alert');
      alert.textContent = 'The console could not load its code. Check your connection and reload the page.';
      root.replaceChildren(alert);
    },
  );
}
