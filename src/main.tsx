import { createAppState } from './app/app-state';
import { startEarly } from './app/early-start';
import './styles.css';

const root = document.getElementById('root');
if (root) {
  const state = createAppState();
  // A signed-in deep link's requests start now, not after React and the screens have evaluated. If
  // the screen's code fails to load here, the router's own import of it shows the error.
  if (state.session.getState().apiKey) startEarly(window.location.pathname, state.queryClient)?.catch(() => undefined);
  import('./app/mount-app').then(
    ({ mountApp }) => mountApp(root, state),
    () => {
      const alert = document.createElement('p');
      alert.setAttribute('role', 'alert');
      alert.textContent = 'The console could not load its code. Check your connection and reload the page.';
      root.replaceChildren(alert);
    },
  );
}
