import { createAppState } from './app/app-state';
import { startEarly } from './app/early-start';
import './styles.css';

const root = document.getElementById('root');
if (root) {
  const state = createAppState();
  // A signed-in deep link's requests and screen code start now, not after React has evaluated.
  const screen = state.session.getState().apiKey ? startEarly(window.location.pathname, state.queryClient) : null;
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
