import { mountApp } from './app/mount-app';
import './styles.css';

const root = document.getElementById('root');
if (root) mountApp(root);
