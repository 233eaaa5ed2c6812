import { startEarly } from './app/early-start';
import './styles.css';

const root = document.getElementById('root');
if (root) {
  // A deep link's requests start before the app's code (React and the screens) has evaluated.
  const early = startEarly(window.location.pathname);
  import('./app/mount-app').then(
    ({ mountApp }) => mountApp(root, early),
    () => {
      const alert = document.createElement('p');
      alert.setAttribute('role', 'alert');
      alert.textContent = 'The console could not load its code. Check your connection and reload the page.';
      root.replaceChildren(alert);
    },
  );
}
